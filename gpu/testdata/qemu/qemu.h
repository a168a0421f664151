// qemu.h: a host emulation of the CUDA features that gpu/kernels/decode.cu
// and query.cu use, so that the query engine's tests can run the kernels
// on a machine without a GPU. A launch runs one fiber (a stack and saved
// registers) per CUDA thread of a CTA on one OS thread, and those fibers
// take the CTAs one after another, so __shared__ variables can be plain
// statics. A fiber runs until it waits at a barrier (warp primitives meet
// at a 32-fiber one, __syncthreads at a CTA-wide one); then the next fiber
// runs. Switching at barriers only, rather than rescheduling hundreds of
// OS threads, keeps the emulation fast on a loaded machine of few cores,
// and a missing barrier shows at once: a fiber runs as far as it can
// before any other starts. Float intrinsics are single IEEE operations
// (compile with -ffp-contract=off).
#pragma once
#include <sys/mman.h>
#include <ucontext.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

struct uint4 {
  unsigned x, y, z, w;
};
struct float4 {
  float x, y, z, w;
};
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return uint4{a, b, c, d}; }
inline float4 make_float4(float a, float b, float c, float d) { return float4{a, b, c, d}; }

struct emu_dim3 {
  unsigned x, y, z;
};
inline emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

void emu_yield();

// EmuBarrier: the last of n fibers to arrive goes on; the others yield
// until its arrival has moved the generation on.
struct EmuBarrier {
  unsigned n, arrived = 0, gen = 0;
  void arrive_and_wait() {
    unsigned g = gen;
    if (++arrived == n) {
      arrived = 0;
      gen++;
      return;
    }
    while (gen == g) emu_yield();
  }
};

struct EmuWarp {
  EmuBarrier bar{32};
  unsigned long long vals[32];
};
struct EmuCTA {
  EmuBarrier bar;
  unsigned count = 0;
};
inline EmuWarp* emu_warp;
inline EmuCTA* emu_cta;
inline int emu_lane;

template <class T> T __ldg(const T* p) { return *p; }
template <class T> T __ldcg(const T* p) { return *p; }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_warp->bar.arrive_and_wait(); }
inline void __syncthreads() { emu_cta->bar.arrive_and_wait(); }
inline int __syncthreads_count(bool pred) {
  if (pred) emu_cta->count++;
  emu_cta->bar.arrive_and_wait();
  int n = (int)emu_cta->count;
  emu_cta->bar.arrive_and_wait();
  if (threadIdx.x == 0) emu_cta->count = 0;
  emu_cta->bar.arrive_and_wait();
  return n;
}
template <class T> T __shfl_sync(unsigned, T v, int src) {
  emu_warp->vals[emu_lane] = (unsigned long long)v;
  emu_warp->bar.arrive_and_wait();
  T r = (T)emu_warp->vals[src & 31];
  emu_warp->bar.arrive_and_wait();
  return r;
}
template <class T> T __shfl_up_sync(unsigned, T v, unsigned d) {
  emu_warp->vals[emu_lane] = (unsigned long long)v;
  emu_warp->bar.arrive_and_wait();
  T r = (unsigned)emu_lane >= d ? (T)emu_warp->vals[emu_lane - d] : v;
  emu_warp->bar.arrive_and_wait();
  return r;
}
inline unsigned __ballot_sync(unsigned, bool pred) {
  emu_warp->vals[emu_lane] = pred ? 1 : 0;
  emu_warp->bar.arrive_and_wait();
  unsigned m = 0;
  for (int l = 0; l < 32; l++)
    if (emu_warp->vals[l]) m |= 1u << l;
  emu_warp->bar.arrive_and_wait();
  return m;
}
// CTAs run one after another, so every write is visible to the next.
inline void __threadfence() {}
inline unsigned atomicAdd(unsigned* p, unsigned v) {
  unsigned old = *p;
  *p = old + v;
  return old;
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(unsigned x) { return x == 0 ? 0 : __builtin_ctz(x) + 1; }
inline int __clz(unsigned x) { return x == 0 ? 32 : __builtin_clz(x); }
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((unsigned long long)hi << 32) | lo) >> (s & 31));
}
inline float __uint2float_rn(unsigned x) { return (float)x; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline unsigned __float_as_uint(float f) {
  unsigned u;
  memcpy(&u, &f, 4);
  return u;
}
inline float __uint_as_float(unsigned u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// A fiber switch: on x86-64 ELF systems (without AddressSanitizer, which
// must see every stack switch) a few instructions that save the
// callee-saved registers and swap stack pointers; elsewhere swapcontext,
// which also makes a system call for the signal mask.
#if defined(__x86_64__) && defined(__ELF__) && !defined(__SANITIZE_ADDRESS__)
#define EMU_ASM_SWITCH 1
extern "C" void emu_switch(void** save_sp, void* to_sp);
asm(R"(
.text
.globl emu_switch
.type emu_switch,@function
emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
.size emu_switch, .-emu_switch
)");
#endif

// EmuFiber is one CUDA thread of a launch: its saved context and its place
// in the CTA, restored into the globals above whenever it resumes.
struct EmuFiber {
#ifdef EMU_ASM_SWITCH
  void* sp;
#else
  ucontext_t ctx;
#endif
  unsigned tid, block;
  bool done;
};

constexpr size_t emu_stack_size = 256 << 10;
inline EmuFiber* emu_cur;
inline const std::function<void()>* emu_kernel;
inline std::vector<void*> emu_stacks;  // kept between launches
#ifdef EMU_ASM_SWITCH
inline void* emu_sched_sp;
inline void emu_yield() { emu_switch(&emu_cur->sp, emu_sched_sp); }
inline void emu_resume(EmuFiber& f) { emu_switch(&emu_sched_sp, f.sp); }
#else
inline ucontext_t emu_sched;
inline void emu_yield() { swapcontext(&emu_cur->ctx, &emu_sched); }
inline void emu_resume(EmuFiber& f) { swapcontext(&emu_sched, &f.ctx); }
#endif

// emu_fiber_main is every fiber's body: its thread of each CTA in turn.
inline void emu_fiber_main() {
  EmuFiber* f = emu_cur;
  for (unsigned b = 0; b < gridDim.x; b++) {
    f->block = b;
    blockIdx = {b, 0, 0};
    (*emu_kernel)();
    emu_cta->bar.arrive_and_wait();
  }
  f->done = true;
#ifdef EMU_ASM_SWITCH
  emu_yield();  // never resumed
#endif
}

// emu_start prepares fiber f to begin emu_fiber_main on stack.
inline void emu_start(EmuFiber& f, void* stack) {
#ifdef EMU_ASM_SWITCH
  // emu_switch pops six registers and returns into emu_fiber_main, which
  // then sees a 16-byte aligned stack below a null return address.
  void** top = (void**)((char*)stack + emu_stack_size);
  top[-1] = nullptr;
  top[-2] = (void*)emu_fiber_main;
  for (int i = 3; i <= 8; i++) top[-i] = nullptr;
  f.sp = &top[-8];
#else
  getcontext(&f.ctx);
  f.ctx.uc_stack.ss_sp = stack;
  f.ctx.uc_stack.ss_size = emu_stack_size;
  f.ctx.uc_link = &emu_sched;
  makecontext(&f.ctx, emu_fiber_main, 0);
#endif
}

// emu_launch runs kernel (its arguments bound) on grid CTAs of block
// threads: block fibers, each running its part of every CTA in turn.
inline void emu_launch(const std::function<void()>& kernel, unsigned grid, unsigned block) {
  blockDim = {block, 1, 1};
  gridDim = {grid, 1, 1};
  EmuCTA cta{EmuBarrier{block}};
  std::vector<EmuWarp> warps(block / 32);
  std::vector<EmuFiber> fibers(block);
  while (emu_stacks.size() < block) {
    // A stack with an inaccessible page below it: an overflow faults.
    constexpr size_t guard = 64 << 10;
    char* s = (char*)mmap(nullptr, guard + emu_stack_size, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (s == MAP_FAILED || mprotect(s, guard, PROT_NONE) != 0) {
      perror("qemu: fiber stack");
      exit(3);
    }
    emu_stacks.push_back(s + guard);
  }
  emu_kernel = &kernel;
  emu_cta = &cta;
  for (unsigned t = 0; t < block; t++) {
    fibers[t] = EmuFiber{};
    fibers[t].tid = t;
    emu_start(fibers[t], emu_stacks[t]);
  }
  for (unsigned live = block; live > 0;) {
    for (EmuFiber& f : fibers) {
      if (f.done) continue;
      emu_cur = &f;
      threadIdx = {f.tid, 0, 0};
      blockIdx = {f.block, 0, 0};
      emu_warp = &warps[f.tid / 32];
      emu_lane = f.tid % 32;
      emu_resume(f);
      if (f.done) live--;
    }
  }
}
