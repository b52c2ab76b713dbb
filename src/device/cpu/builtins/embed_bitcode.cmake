# Writes OUTPUT, a C file defining NAME[] (default kiln_builtins_bitcode) and NAME_size
# with the bytes of INPUT (see builtins.h).
# Run with cmake -DINPUT=... -DOUTPUT=... [-DNAME=...] -P embed_bitcode.cmake.
if(NOT NAME)
  set(NAME kiln_builtins_bitcode)
endif()
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){32})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp"
  "/* Generated from ${INPUT} by embed_bitcode.cmake. Do not edit. */\n"
  "#include \"device/cpu/builtins/builtins.h\"\n\n"
  "_Alignas(16) const unsigned char ${NAME}[] = {\n${bytes}\n};\n"
  "const size_t ${NAME}_size = ${size};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
