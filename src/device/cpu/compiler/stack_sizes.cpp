// stack_sizes.cpp: the stack the generated code needs, read from the machine code. The JIT
// compiles with TargetOptions::EmitStackSizeSection, so every object has .stack_sizes
// sections: for each function, its address (a relocation to its symbol) and its frame
// size (ULEB128). Private memory lives on the stack of whichever thread runs the launcher:
// a kernel with a 256 MiB __private array used to build and enqueue, and then killed the
// process. The runtime compares this figure with the threads' stacks instead.
#include "device/cpu/compiler/compiler_internal.hpp"

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/LEB128.h>
#include <llvm/Support/MemoryBuffer.h>

#include <map>

using namespace llvm;

namespace {

// The name of the function a .stack_sizes relocation points at: its symbol, or for a
// section symbol the function at the addend's offset in that section.
std::string function_of(const object::ObjectFile &obj, const object::RelocationRef &reloc) {
  object::symbol_iterator symbol = reloc.getSymbol();
  if (symbol == obj.symbol_end()) return "";
  Expected<object::SymbolRef::Type> type = symbol->getType();
  if (type && *type == object::SymbolRef::ST_Function) {
    Expected<StringRef> name = symbol->getName();
    return name ? name->str() : "";
  }
  consumeError(type.takeError());
  Expected<object::section_iterator> section = symbol->getSection();
  if (!section) {
    consumeError(section.takeError());
    return "";
  }
  Expected<int64_t> addend = object::ELFRelocationRef(reloc).getAddend();
  uint64_t offset = addend ? (uint64_t)*addend : 0;
  if (!addend) consumeError(addend.takeError());
  for (const object::SymbolRef &candidate : obj.symbols()) {
    Expected<object::SymbolRef::Type> candidate_type = candidate.getType();
    if (!candidate_type || *candidate_type != object::SymbolRef::ST_Function) {
      if (!candidate_type) consumeError(candidate_type.takeError());
      continue;
    }
    Expected<object::section_iterator> candidate_section = candidate.getSection();
    Expected<uint64_t> value = candidate.getValue();
    Expected<StringRef> name = candidate.getName();
    bool match = candidate_section && value && name && *candidate_section == *section && *value == offset &&
                 !name->empty();
    if (!candidate_section) consumeError(candidate_section.takeError());
    if (!value) consumeError(value.takeError());
    if (match) return name->str();
    if (!name) consumeError(name.takeError());
  }
  return "";
}

}  // namespace

namespace kiln {

bool read_stack_sizes(StringRef object_bytes, std::map<std::string, uint64_t> &sizes) {
  Expected<std::unique_ptr<object::ObjectFile>> parsed =
      object::ObjectFile::createObjectFile(MemoryBufferRef(object_bytes, "kiln-object"));
  if (!parsed) {
    consumeError(parsed.takeError());
    return false;
  }
  const object::ObjectFile &obj = **parsed;
  bool found = false;
  for (const object::SectionRef &relocations : obj.sections()) {
    Expected<object::section_iterator> target = relocations.getRelocatedSection();
    if (!target) {
      consumeError(target.takeError());
      continue;
    }
    if (*target == obj.section_end()) continue;
    Expected<StringRef> name = (*target)->getName();
    if (!name || *name != ".stack_sizes") {
      if (!name) consumeError(name.takeError());
      continue;
    }
    Expected<StringRef> contents = (*target)->getContents();
    if (!contents) {
      consumeError(contents.takeError());
      continue;
    }
    found = true;
    for (const object::RelocationRef &reloc : relocations.relocations()) {
      uint64_t at = reloc.getOffset() + 8;  // the 8-byte address, then the size
      if (at >= contents->size()) continue;
      unsigned length = 0;
      const char *error = nullptr;
      uint64_t size = decodeULEB128(reinterpret_cast<const uint8_t *>(contents->data()) + at, &length,
                                    reinterpret_cast<const uint8_t *>(contents->data()) + contents->size(), &error);
      std::string function = function_of(obj, reloc);
      if (!error && !function.empty()) sizes[function] = size;
    }
  }
  return found;
}

}  // namespace kiln
