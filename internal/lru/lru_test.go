package lru

import (
	"strconv"
	"testing"
)

func TestCache(t *testing.T) {
	type op struct {
		add  bool
		key  string
		n    int // value added, or wanted (0: want a miss)
		want int // Len after the op
	}
	tests := []struct {
		name string
		cap  int
		ops  []op
	}{
		{"get after add", 2, []op{{true, "a", 1, 1}, {false, "a", 1, 1}, {false, "b", 0, 1}}},
		{"evicts least recent", 2, []op{{true, "a", 1, 1}, {true, "b", 2, 2}, {true, "c", 3, 2}, {false, "a", 0, 2}, {false, "b", 2, 2}, {false, "c", 3, 2}}},
		{"get refreshes", 2, []op{{true, "a", 1, 1}, {true, "b", 2, 2}, {false, "a", 1, 2}, {true, "c", 3, 2}, {false, "b", 0, 2}, {false, "a", 1, 2}}},
		{"add replaces", 2, []op{{true, "a", 1, 1}, {true, "a", 5, 1}, {false, "a", 5, 1}}},
		{"capacity one", 1, []op{{true, "a", 1, 1}, {true, "b", 2, 1}, {false, "a", 0, 1}, {false, "b", 2, 1}}},
		{"disabled", 0, []op{{true, "a", 1, 0}, {false, "a", 0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New[int](tt.cap)
			if c.Cap() != tt.cap {
				t.Errorf("New(%d).Cap() = %d", tt.cap, c.Cap())
			}
			for i, o := range tt.ops {
				if o.add {
					c.Add(o.key, o.n)
				} else {
					got, ok := c.Get(o.key)
					switch {
					case o.n == 0 && ok:
						t.Errorf("op %d: Get(%q) = %v, want a miss", i, o.key, got)
					case o.n != 0 && (!ok || got != o.n):
						t.Errorf("op %d: Get(%q) = %v, %v, want %d", i, o.key, got, ok, o.n)
					}
				}
				if c.Len() != o.want {
					t.Errorf("op %d: Len() = %d, want %d", i, c.Len(), o.want)
				}
			}
		})
	}
}

func BenchmarkCache(b *testing.B) {
	c := New[struct{}](1000)
	keys := make([]string, 2000)
	for i := range keys {
		keys[i] = "key" + strconv.Itoa(i)
	}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			k := keys[i%len(keys)]
			if _, ok := c.Get(k); !ok {
				c.Add(k, struct{}{})
			}
			i++
		}
	})
}
