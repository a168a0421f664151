package gpu

import (
	"github.com/gpusearch/gpusearch/analytics"
	"github.com/gpusearch/gpusearch/internal/cuda"
)

//go:generate go run ../../internal/kernelgen -cu kernels/analytics.cu -pkg gpu -list analyticsKernels -ptr devPtr -o analytics_kernels.go

// devPtr is an address in device memory: a kernel's pointer parameter.
type devPtr uint64

// ptr is b's device address.
func ptr(b *cuda.Buffer) devPtr { return devPtr(b.Ptr()) }

// launcher launches kernels by name, each parameter 8 bytes; the
// generated wrappers (analytics_kernels.go) call it with their kernel's
// parameters in order. A Corpus is one.
type launcher interface {
	launch(kernel string, grid, block int, args ...uint64) error
}

// launch starts kernel on grid CTAs of block threads; a zero grid starts
// nothing. It runs inside a timed section (cuda.Device.Timed).
func (a *Corpus) launch(kernel string, grid, block int, args ...uint64) error {
	if grid == 0 {
		return nil
	}
	return a.mod.Launch(cuda.Stream{}, kernel, grid, block, args...)
}

// gridOf is the grid of analyticsCTA-thread CTAs for n work items of per
// threads each (1: a thread, 32: a warp).
func gridOf(n, per int) int { return (n*per + analyticsCTA - 1) / analyticsCTA }

// level is one level of a layout as a kernel that runs each_rule
// (kernels/analytics.cu) takes it, in one launch: a CTA per block rule,
// then a warp per warp rule, then a thread per thread rule. rules, nt, ng
// and nb are the kernel's first four parameters: the level's rules and
// their three counts.
type level struct {
	grid       int
	rules      devPtr
	nt, ng, nb uint64
}

// levelOf returns level lv of a layout whose Rules are in buffer rules.
func levelOf(layout *analytics.Layout, rules *cuda.Buffer, lv int) level {
	at := layout.LevelStart[analytics.Sizes*lv : analytics.Sizes*(lv+1)+1]
	nt, ng, nb := int(at[1]-at[0]), int(at[2]-at[1]), int(at[3]-at[2])
	return level{
		grid:  nb + gridOf(ng, 32) + gridOf(nt, 1),
		rules: ptr(rules) + 4*devPtr(at[0]),
		nt:    uint64(nt), ng: uint64(ng), nb: uint64(nb),
	}
}
