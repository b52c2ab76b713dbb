#!/usr/bin/env python3
"""Writes an OpenCL C kernel that calls every sub-group builtin clang's opencl-c.h declares
(cl_khr_subgroups and the cl_khr_subgroup_* extensions, without fp16), so that linking it
with the builtin library shows any the library lacks (test_builtins_coverage.c).
Usage: subgroup_probe.py OPENCL_C_H OUT_CL"""
import re
import sys

header, out_path = sys.argv[1], sys.argv[2]
text = open(header).read()
start = text.index('// OpenCL Extension v2.0 s9.17 - Sub-groups')
end = text.index('#endif // cl_khr_subgroup_rotate')
calls, seen = [], set()
proto = re.compile(r'\s*(\w+)\s+__ovld(?:\s+__\w+)*\s+(\w+)\s*\((.*)\)\s*;')
for line in text[start:end].split('\n'):
    m = proto.match(line)
    if not m or 'sub_group' not in m.group(2):
        continue
    ret, name, params = m.groups()
    types = []
    for p in [p.strip() for p in params.split(',')] if params.strip() not in ('', 'void') else []:
        words = p.split()
        types.append(' '.join(words[:-1] if len(words) > 1 else words))
    if 'half' in ret or any('half' in t for t in types) or (name, tuple(types)) in seen:
        continue
    seen.add((name, tuple(types)))
    special = {'memory_scope': 'memory_scope_sub_group', 'cl_mem_fence_flags': 'CLK_LOCAL_MEM_FENCE'}
    args = ', '.join(special.get(t, '(%s)0' % t) for t in types)
    n = len(calls)
    calls.append('  %s(%s);' % (name, args) if ret == 'void' else
                 '  { %s r = %s(%s); o[%d] = sizeof r; }' % (ret, name, args, n))
with open(out_path, 'w') as f:
    f.write('kernel void probe(global int *o) {\n' + '\n'.join(calls) + '\n}\n')
print(len(calls))
