#!/usr/bin/env python3
"""Writes an OpenCL C kernel that calls every builtin of one family that clang's opencl-c.h
declares, so that linking it with the builtin library shows any the library lacks
(test_builtins_coverage.c). Families:
  subgroups  cl_khr_subgroups and the cl_khr_subgroup_* extensions (without half)
  half3      every function with a half argument or result, as OpenCL C 3.0 declares them
             (generic pointers), but images and the vload_half/vstore_half family
  half1      the same for OpenCL C 1.x (named address spaces; no collectives)
Usage: declarations_probe.py OPENCL_C_H FAMILY OUT_CL (prints the number of calls)"""
import re
import sys

header, family, out_path = sys.argv[1:4]
text = open(header).read()
if family == 'subgroups':
    text = text[text.index('// OpenCL Extension v2.0 s9.17 - Sub-groups'):text.index('#endif // cl_khr_subgroup_rotate')]
proto = re.compile(r'^\s*(\w+)\s+__ovld(?:\s+__\w+)*\s+(\w+)\s*\((.*)\)\s*;', re.M)
calls, seen = [], set()
for m in proto.finditer(text):
    ret, name, params = m.groups()
    types = []
    for p in [p.strip() for p in params.split(',')] if params.strip() not in ('', 'void') else []:
        words = p.split()  # drop the parameter's name, if it has one
        types.append(' '.join(words[:-1] if len(words) > 1 and not words[-1].endswith('*') else words))
    has_half = 'half' in ret or any('half' in t for t in types)
    named = any(a in t for t in types for a in ('__global', '__local', '__private'))
    if family == 'subgroups':
        if 'sub_group' not in name or has_half:
            continue
    else:
        if not has_half or re.search(r'image|avc|intel|block|pipe|atomic|^v(load|store)a?_half', name):
            continue
        if family == 'half3' and named:
            continue
        if family == 'half1' and ((any('*' in t for t in types) and not named) or 'group' in name):
            continue
    if (name, tuple(types)) in seen:
        continue
    seen.add((name, tuple(types)))
    special = {'memory_scope': 'memory_scope_sub_group', 'cl_mem_fence_flags': 'CLK_LOCAL_MEM_FENCE'}
    args = ', '.join(special.get(t, '(%s)0' % t) for t in types)
    calls.append('  %s(%s);' % (name, args) if ret == 'void' else
                 '  { %s r = %s(%s); o[%d] = sizeof r; }' % (ret, name, args, len(calls)))
with open(out_path, 'w') as f:
    f.write('#pragma OPENCL EXTENSION cl_khr_fp16 : enable\nkernel void probe(global int *o) {\n' +
            '\n'.join(calls) + '\n}\n')
print(len(calls))
