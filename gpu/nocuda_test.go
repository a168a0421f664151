//go:build !cuda

package gpu

import (
	"errors"
	"testing"

	"github.com/gpusearch/gpusearch/query"
)

// TestNoCUDA: without the cuda tag every way to a device fails with
// ErrNoCUDA, which wraps query.ErrNoGPU.
func TestNoCUDA(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func() error
	}{
		{"OpenDevice", func() error { _, err := OpenDevice(DeviceOptions{}); return err }},
		{"NewEngine", func() error { _, err := NewEngine(nil, Options{}); return err }},
		{"NewIntersector", func() error { _, err := NewIntersector(DeviceOptions{}); return err }},
	} {
		if err := tc.open(); !errors.Is(err, ErrNoCUDA) || !errors.Is(err, query.ErrNoGPU) {
			t.Errorf("%s() error = %v, want ErrNoCUDA wrapping query.ErrNoGPU", tc.name, err)
		}
	}
}
