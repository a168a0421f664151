//go:build !cuda

package gpu

import (
	"errors"
	"testing"

	"github.com/gpusearch/gpusearch/query"
)

func TestOpenDeviceNoCUDA(t *testing.T) {
	d, err := OpenDevice(DeviceOptions{})
	if d != nil || !errors.Is(err, ErrNoCUDA) || !errors.Is(err, query.ErrNoGPU) {
		t.Errorf("OpenDevice() = %v, %v, want nil, ErrNoCUDA wrapping query.ErrNoGPU", d, err)
	}
}
