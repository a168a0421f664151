package codecplugins

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

var (
	mu       sync.RWMutex
	registry = map[string]Codec{}
)

// Register makes a codec available by its name. It panics if c is nil, its
// name is empty, or the name is already taken: these are programmer errors
// caught at init.
func Register(c Codec) {
	if c == nil {
		panic("codecplugins: Register of nil codec")
	}
	name := c.Name()
	if name == "" {
		panic("codecplugins: Register of codec with empty name")
	}
	if c.BlockSize() <= 0 {
		panic("codecplugins: Register of codec " + name + " with non-positive block size")
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[name]; dup {
		panic("codecplugins: Register called twice for codec " + name)
	}
	registry[name] = c
}

// Lookup returns the codec registered under name.
func Lookup(name string) (Codec, error) {
	mu.RLock()
	c, ok := registry[name]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("codecplugins: %w %q (forgotten import?); registered: %s",
			ErrUnknownCodec, name, strings.Join(Names(), ", "))
	}
	return c, nil
}

// Names returns the registered codec names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
