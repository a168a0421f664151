package schedule

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// fakeGPU stands in for the GPU engine: device 9 is missing, device 7 is
// a build without CUDA, the others open and report one run each.
type fakeGPU struct {
	device int
	closed *[]int
}

func (f fakeGPU) Search(context.Context, query.Query) (query.Result, error) {
	return query.Result{}, nil
}

func (f fakeGPU) DeviceUsage() query.DeviceUsage {
	return query.DeviceUsage{Runs: 1, Held: time.Duration(f.device) * time.Second, Busy: time.Second}
}

func (f fakeGPU) Close() error {
	*f.closed = append(*f.closed, f.device)
	return nil
}

var closedGPUs []int

func init() {
	query.Register("gpu", query.Driver{Needs: query.Needs{GPU: true}, Open: func(_ *index.Index, o query.Options) (query.Engine, error) {
		switch o.GPU.Device {
		case 9:
			return nil, errors.New("no such device")
		case 7:
			return nil, fmt.Errorf("built without CUDA: %w", query.ErrNoGPU)
		}
		return fakeGPU{o.GPU.Device, &closedGPUs}, nil
	}})
}

func TestOpenGPUs(t *testing.T) {
	tests := []struct {
		devices []int
		opened  int
		err     string
	}{
		{nil, 0, ""},
		{[]int{0, 1}, 2, ""},
		{[]int{0, 9, 2}, 2, "device 9: no such device"},
		{[]int{7, 0, 1}, 0, "device 7: built without CUDA: no GPU available"}, // the first ErrNoGPU stops
	}
	for _, tt := range tests {
		closedGPUs = nil
		gs, err := OpenGPUs(nil, query.Options{}, tt.devices)
		var msg string
		if err != nil {
			msg = err.Error()
		}
		if len(gs) != tt.opened || msg != tt.err {
			t.Errorf("OpenGPUs(%v) = %d engines, %v; want %d, %q", tt.devices, len(gs), err, tt.opened, tt.err)
		}
		if u := gs.Usage(); u.Runs != int64(tt.opened) || u.Busy != time.Duration(tt.opened)*time.Second {
			t.Errorf("OpenGPUs(%v).Usage() = %+v, want %d runs", tt.devices, u, tt.opened)
		}
		if err := gs.Close(); err != nil || len(closedGPUs) != tt.opened {
			t.Errorf("OpenGPUs(%v).Close() = %v, closed %v", tt.devices, err, closedGPUs)
		}
	}
}
