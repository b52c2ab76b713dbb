// The IL half of test_spirv.c's link test: its kernel calls a function the source half
// defines (an import in the SPIR-V module).
int helper(int x);
kernel void uses_helper(global int *p) { p[get_global_id(0)] = helper((int)get_global_id(0)); }
