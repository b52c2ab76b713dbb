typedef struct { float4 position; int id; char tag[3]; } particle;
constant float scale = 0.5f;
float4 step(particle p, float dt) { return p.position * (float4)(dt, dt, dt, 1.0f) * scale; }
__attribute__((reqd_work_group_size(8, 1, 1)))
kernel void advance(global particle *ps, float dt, global int *count) {
  size_t i = get_global_id(0);
  ps[i].position = step(ps[i], dt);
  atomic_inc(count);
  if (ps[i].id < 0) printf("particle %d at %v4f\n", ps[i].id, ps[i].position);
}
