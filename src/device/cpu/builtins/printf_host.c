/* OpenCL C printf on the host (see printf_host.h). Each conversion is parsed as the OpenCL
 * C spec defines it, checked, and formatted element by element with the C library's
 * snprintf on a C99 conversion of the same flags, width and precision. */
#include "device/cpu/builtins/printf_host.h"

#include "device/cpu/compiler/compiler.h"
#include "device/cpu/printf_buffer.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Width and precision beyond this cannot fit any printf buffer; parsing stops growing them. */
#define MAX_FIELD 100000000
#define STACK_TEXT_BYTES 512

/* The text of one call, on the stack until it outgrows it, never longer than `limit`. */
struct sink {
  char *data;
  size_t length, capacity, limit;
  bool heap, failed;
  char stack[STACK_TEXT_BYTES];
};

static bool sink_reserve(struct sink *s, size_t more) {
  if (s->failed) return false;
  if (more > s->limit - s->length) {
    s->failed = true;
    return false;
  }
  size_t need = s->length + more + 1; /* + NUL of snprintf */
  if (need <= s->capacity) return true;
  size_t capacity = s->capacity * 2 > need ? s->capacity * 2 : need;
  char *data = s->heap ? realloc(s->data, capacity) : malloc(capacity);
  if (!data) {
    s->failed = true;
    return false;
  }
  if (!s->heap) memcpy(data, s->data, s->length);
  s->data = data;
  s->capacity = capacity;
  s->heap = true;
  return true;
}

static void sink_put(struct sink *s, const char *text, size_t length) {
  if (!sink_reserve(s, length)) return;
  memcpy(s->data + s->length, text, length);
  s->length += length;
}

static void sink_format(struct sink *s, const char *spec, ...) {
  if (s->failed) return;
  va_list ap;
  va_start(ap, spec);
  int n = vsnprintf(s->data + s->length, s->capacity - s->length, spec, ap);
  va_end(ap);
  if (n < 0) {
    s->failed = true;
    return;
  }
  size_t room = s->capacity - s->length;
  if (!sink_reserve(s, (size_t)n)) return;
  if ((size_t)n >= room) { /* truncated: again, with the room sink_reserve made */
    va_start(ap, spec);
    vsnprintf(s->data + s->length, s->capacity - s->length, spec, ap);
    va_end(ap);
  }
  s->length += (size_t)n;
}

enum length_modifier { LENGTH_NONE, LENGTH_HH, LENGTH_H, LENGTH_HL, LENGTH_L };

struct conversion {
  char flags[8]; /* the flag characters given, each once */
  int width, precision; /* -1 when absent */
  unsigned vector;      /* 0: scalar */
  enum length_modifier length;
  char specifier;
};

static bool is_integer_specifier(char c) { return c && strchr("diouxX", c); }
static bool is_float_specifier(char c) { return c && strchr("fFeEgGaA", c); }

static int parse_number(const char **p) {
  int value = 0;
  while (**p >= '0' && **p <= '9') {
    if (value < MAX_FIELD) value = value * 10 + (**p - '0');
    (*p)++;
  }
  return value;
}

/* Parses the conversion after '%' at *p and advances past it. False when it is not one
 * the OpenCL C spec defines (then *p is past the offending character, if any). */
static bool parse_conversion(const char **p, struct conversion *c) {
  memset(c, 0, sizeof *c);
  c->width = c->precision = -1;
  size_t nflags = 0;
  while (**p && strchr("-+ #0", **p)) {
    if (!strchr(c->flags, **p)) c->flags[nflags++] = **p;
    (*p)++;
  }
  if (**p >= '1' && **p <= '9') c->width = parse_number(p);
  if (**p == '.') {
    (*p)++;
    c->precision = parse_number(p);
  }
  if (**p == 'v') {
    (*p)++;
    c->vector = (unsigned)parse_number(p);
    if (c->vector != 2 && c->vector != 3 && c->vector != 4 && c->vector != 8 && c->vector != 16) return false;
  }
  if (**p == 'h') {
    (*p)++;
    c->length = LENGTH_H;
    if (**p == 'h') {
      (*p)++;
      c->length = LENGTH_HH;
    } else if (**p == 'l') {
      (*p)++;
      c->length = LENGTH_HL;
    }
  } else if (**p == 'l') {
    (*p)++;
    c->length = LENGTH_L;
  }
  c->specifier = **p;
  if (!c->specifier) return false;
  (*p)++;
  bool integer = is_integer_specifier(c->specifier), floating = is_float_specifier(c->specifier);
  if (c->vector) {
    /* A vector needs a length modifier; hh applies to integers only. */
    if (c->length == LENGTH_NONE) return false;
    if (!integer && !floating) return false;
    if (floating && c->length == LENGTH_HH) return false;
    return true;
  }
  if (c->length == LENGTH_HL) return false; /* vectors only */
  if (c->length != LENGTH_NONE && !integer) return false; /* no l with c, s (and a..G) */
  return integer || floating || c->specifier == 'c' || c->specifier == 's' || c->specifier == 'p';
}

/* "%<flags><width>.<precision><length><specifier>" for the C library. */
static void c_spec(const struct conversion *c, const char *length, char specifier, char *out, size_t size) {
  int n = snprintf(out, size, "%%%s", c->flags);
  if (c->width >= 0) n += snprintf(out + n, size - (size_t)n, "%d", c->width);
  if (c->precision >= 0) n += snprintf(out + n, size - (size_t)n, ".%d", c->precision);
  snprintf(out + n, size - (size_t)n, "%s%c", length, specifier);
}

static uint64_t read_bits(const unsigned char *p, unsigned bytes) {
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64 = 0;
  switch (bytes) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    case 8: memcpy(&u64, p, 8); return u64;
    default: return 0;
  }
}

static double half_to_double(uint16_t h) {
  int exponent = (h >> 10) & 0x1f;
  double mantissa = h & 0x3ff;
  double value;
  if (exponent == 0) value = ldexp(mantissa, -24);
  else if (exponent == 31) value = mantissa ? NAN : INFINITY;
  else value = ldexp(mantissa + 1024, exponent - 25);
  return (h & 0x8000) ? -value : value;
}

/* One argument: its descriptor and value bytes. */
struct argument {
  uint32_t type;
  const unsigned char *value;
};

/* Element i as raw bits (0 beyond the argument's elements: a mismatched vector size is
 * undefined behaviour, which must not read past the argument). */
static uint64_t element_bits(const struct argument *a, unsigned i) {
  if (i >= KILN_PRINTF_ARG_COUNT(a->type)) return 0;
  unsigned bytes = KILN_PRINTF_ARG_ELEMENT_BYTES(a->type);
  return read_bits(a->value + (size_t)i * bytes, bytes);
}

static double element_double(const struct argument *a, unsigned i) {
  uint64_t bits = element_bits(a, i);
  unsigned bytes = KILN_PRINTF_ARG_ELEMENT_BYTES(a->type);
  if (KILN_PRINTF_ARG_KIND(a->type) != KILN_PRINTF_ARG_FLOAT) return (double)(int64_t)bits;
  if (bytes == 8) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
  }
  if (bytes == 4) {
    uint32_t u = (uint32_t)bits;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
  }
  return half_to_double((uint16_t)bits);
}

static unsigned modifier_bits(enum length_modifier length) {
  switch (length) {
    case LENGTH_HH: return 8;
    case LENGTH_H: return 16;
    case LENGTH_L: return 64;
    default: return 32; /* none (int) and hl (intn) */
  }
}

static void format_integer(struct sink *s, const struct conversion *c, uint64_t bits) {
  char spec[48];
  unsigned width = modifier_bits(c->length);
  if (width < 64) bits &= ((uint64_t)1 << width) - 1;
  c_spec(c, "ll", c->specifier, spec, sizeof spec);
  if (c->specifier == 'd' || c->specifier == 'i') {
    int64_t value = (int64_t)bits;
    if (width < 64 && (bits >> (width - 1)) & 1) value = (int64_t)(bits | ~(((uint64_t)1 << width) - 1));
    sink_format(s, spec, (long long)value);
  } else {
    sink_format(s, spec, (unsigned long long)bits);
  }
}

static void format_float(struct sink *s, const struct conversion *c, double value) {
  char spec[48];
  c_spec(c, "", c->specifier, spec, sizeof spec);
  sink_format(s, spec, value);
}

static void format_argument(struct sink *s, const struct conversion *c, const struct argument *a) {
  char spec[48];
  switch (c->specifier) {
    case 'c':
      c_spec(c, "", 'c', spec, sizeof spec);
      sink_format(s, spec, (int)(unsigned char)element_bits(a, 0));
      return;
    case 's': {
      const char *text = NULL;
      if (KILN_PRINTF_ARG_KIND(a->type) == KILN_PRINTF_ARG_POINTER) text = (const char *)(uintptr_t)element_bits(a, 0);
      c_spec(c, "", 's', spec, sizeof spec);
      sink_format(s, spec, text ? text : "(null)");
      return;
    }
    case 'p':
      c_spec(c, "", 'p', spec, sizeof spec);
      sink_format(s, spec, (void *)(uintptr_t)element_bits(a, 0));
      return;
  }
  unsigned n = c->vector ? c->vector : 1;
  for (unsigned i = 0; i < n; i++) {
    if (i) sink_put(s, ",", 1);
    if (is_integer_specifier(c->specifier)) format_integer(s, c, element_bits(a, i));
    else format_float(s, c, element_double(a, i));
  }
}

int kiln_printf_host(const char *format, const uint32_t *types, uint32_t count, const void *args) {
  size_t limit = kiln_printf_capacity();
  if (!format || limit == 0) return -1; /* not inside a launch that has a printf buffer */
  struct sink s = {.capacity = STACK_TEXT_BYTES, .limit = limit};
  s.data = s.stack;
  bool valid = true;
  uint32_t next = 0;
  size_t offset = 0;
  for (const char *p = format; *p && !s.failed;) {
    const char *percent = strchr(p, '%');
    size_t plain = percent ? (size_t)(percent - p) : strlen(p);
    sink_put(&s, p, plain);
    if (!percent) break;
    p = percent + 1;
    if (*p == '%') {
      sink_put(&s, "%", 1);
      p++;
      continue;
    }
    struct conversion c;
    if (!parse_conversion(&p, &c)) {
      sink_put(&s, percent, (size_t)(p - percent)); /* shown as written */
      valid = false;
      continue;
    }
    if (next >= count) {
      valid = false; /* insufficient arguments: nothing to convert */
      continue;
    }
    offset = (offset + KILN_PRINTF_ARG_ALIGN - 1) / KILN_PRINTF_ARG_ALIGN * KILN_PRINTF_ARG_ALIGN;
    struct argument a = {types[next], (const unsigned char *)args + offset};
    offset += kiln_printf_arg_bytes(a.type);
    next++;
    format_argument(&s, &c, &a);
  }
  bool ok = !s.failed && kiln_printf_append(s.data, s.length);
  if (s.heap) free(s.data);
  return ok && valid ? 0 : -1;
}

void kiln_printf_host_register(void) { kiln_jit_define_symbol(KILN_PRINTF_HOST_SYMBOL, (void *)kiln_printf_host); }
