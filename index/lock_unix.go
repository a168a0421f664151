//go:build unix

package index

import (
	"errors"
	"os"
	"syscall"
)

// lockFile opens path and takes an exclusive flock on it without waiting:
// ErrLocked if another open file holds it. Closing the file releases the
// lock, as does the process's death, so a killed writer never leaves the
// directory locked.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return f, nil
}
