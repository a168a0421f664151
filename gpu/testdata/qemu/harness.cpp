// harness.cpp: runs the decode kernels, under qemu.h, on the cases that
// TestKernelsOnCPU writes, and compares their output with the CPU
// reference's. Usage: harness CASES; exit status 1 on any difference.
//
// Case file, little-endian, cases back to back:
//   u32 len, kernel stem ("!" first: garbage, run but not compared)
//   u32 block size, u32 blocks, u64 data length, data bytes
//   u64 offsets[blocks+1], u32 counts[blocks], u32 bases[blocks]
//   u32 nsel, u32 sel[nsel]
//   expected rows (u32 x count*block size) for: all blocks as gaps, as
//   docids; the selected blocks as gaps, as docids
#include "qemu.h"
#include "kern.cu"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

typedef void (*Kernel)(const u8*, u64, const u64*, const u32*, const u32*, const u32*, u64, u64, u64, u32*, u64);

static const std::map<std::string, Kernel> kernels = {
    {"bp128_gaps", decode_bp128_gaps},         {"bp128_docids", decode_bp128_docids},
    {"bp256_gaps", decode_bp256_gaps},         {"bp256_docids", decode_bp256_docids},
    {"vbyte128_gaps", decode_vbyte128_gaps},   {"vbyte128_docids", decode_vbyte128_docids},
    {"vbyte1024_gaps", decode_vbyte1024_gaps}, {"vbyte1024_docids", decode_vbyte1024_docids},
    {"pfordelta_gaps", decode_pfordelta_gaps}, {"pfordelta_docids", decode_pfordelta_docids},
    {"rice_gaps", decode_rice_gaps},           {"rice_docids", decode_rice_docids},
};

static FILE* in;

template <class T> static std::vector<T> read(size_t n) {
  std::vector<T> v(n);
  if (n > 0 && fread(v.data(), sizeof(T), n, in) != n) {
    fprintf(stderr, "harness: short case file\n");
    exit(2);
  }
  return v;
}

int main(int argc, char** argv) {
  if (argc != 2 || (in = fopen(argv[1], "rb")) == nullptr) {
    fprintf(stderr, "usage: harness CASES\n");
    return 2;
  }
  int cases = 0, failures = 0;
  u32 len;
  while (fread(&len, 4, 1, in) == 1) {
    auto name = read<char>(len);
    std::string stem(name.begin(), name.end());
    bool garbage = stem[0] == '!';
    if (garbage) stem = stem.substr(1);
    u32 bs = read<u32>(1)[0], nb = read<u32>(1)[0];
    u64 dl = read<u64>(1)[0];
    auto data = read<u8>(dl);
    // As the device layer allocates: 16-byte aligned, 64 bytes of slack.
    std::vector<uint4> dev((dl + 64 + 15) / 16);
    memcpy(dev.data(), data.data(), dl);
    auto offs = read<u64>(nb + 1);
    auto counts = read<u32>(nb);
    auto bases = read<u32>(nb);
    u32 nsel = read<u32>(1)[0];
    auto sel = read<u32>(nsel);
    for (int m = 0; m < 4; m++) {
      bool selected = m >= 2;
      const char* out = m % 2 ? "docids" : "gaps";
      u32 count = selected ? nsel : nb;
      size_t n = (size_t)count * bs;
      auto want = read<u32>(n);
      std::vector<uint4> buf(n / 4 + 1);
      u32* got = (u32*)buf.data();
      for (size_t i = 0; i < n; i++) got[i] = 0xDEADBEEFu;
      auto k = kernels.find(stem + "_" + out);
      if (k == kernels.end()) {
        fprintf(stderr, "harness: no kernel %s_%s\n", stem.c_str(), out);
        return 2;
      }
      if (count > 0)
        emu_launch(
            [&] {
              k->second((const u8*)dev.data(), dl, (const u64*)offs.data(), (const u32*)counts.data(),
                        (const u32*)bases.data(), selected ? (const u32*)sel.data() : (const u32*)nullptr, (u64)0,
                        (u64)count, (u64)nb, got, (u64)bs);
            },
            (count + WARPS - 1) / WARPS, WARPS * 32);
      cases++;
      if (garbage) continue;
      for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
          fprintf(stderr, "%s %s%s, %u blocks: out[%zu] (block %zu, value %zu) = %u, want %u\n", stem.c_str(),
                  selected ? "selected " : "", out, nb, i, i / bs, i % bs, got[i], want[i]);
          failures++;
          break;
        }
      }
    }
  }
  printf("%d cases, %d failures\n", cases, failures);
  return failures != 0;
}
