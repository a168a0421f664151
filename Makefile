# Build helpers. Plain `go build ./...` and `go test ./...` need none of this.
#
#   make ptx      compile the kernel sources (gpu/kernels, analytics/gpu/kernels)
#                 to the committed, embedded .ptx (needs nvcc; each .ptx
#                 records its source's sha256)
#   make device   build the cuda binaries the GPU machine runs into .device/:
#                 the test binaries of the packages with GPU tests and the CLI
#                 (CUDA 11.8 headers via scripts/cuda-dev.sh), stripped, so
#                 that they fit the device tool's 64 MiB carry
#   make device-libsvb SVB=DIR
#                 build .device/libsvb.test, the libstreamvbyte benchmark,
#                 statically linked with the library built into DIR
#                 (docs/codecs.md), for scripts/device/codecs-simd.sh

NVCC ?= nvcc
CUDA_DEV ?= bash scripts/cuda-dev.sh
KERNELS := $(wildcard gpu/kernels/*.cu analytics/gpu/kernels/*.cu)

.PHONY: ptx device device-libsvb

ptx: $(KERNELS:.cu=.ptx)

%.ptx: %.cu $(wildcard gpu/kernels/*.cuh) gpu/kernels/mkptx.sh
	NVCC=$(NVCC) sh gpu/kernels/mkptx.sh $< $@

device:
	eval "$$($(CUDA_DEV))" && \
	go test -c -tags cuda -ldflags="-s -w" -o .device/gpu.test ./gpu/ && \
	go test -c -tags cuda -ldflags="-s -w" -o .device/analytics-gpu.test ./analytics/gpu/ && \
	go test -c -tags cuda -ldflags="-s -w" -o .device/cuda.test ./internal/cuda/ && \
	go test -c -ldflags="-s -w" -o .device/simdbench.test ./codecplugins/internal/simdbench/ && \
	go build -tags cuda -ldflags="-s -w" -o .device/gpusearch ./cmd/gpusearch

device-libsvb:
	test -n "$(SVB)" && \
	CGO_CFLAGS=-I$(SVB)/include CGO_LDFLAGS=-L$(SVB)/lib \
	go test -c -tags libstreamvbyte,netgo,osusergo -ldflags="-s -w -extldflags=-static" \
		-o .device/libsvb.test ./codecplugins/varint/internal/libsvb/
