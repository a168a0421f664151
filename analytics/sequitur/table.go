package sequitur

// emptyKey marks a free slot. No digram has it: it would need the dead
// symbol on both sides.
const emptyKey = ^uint64(0)

// digramTable maps a digram (two symbols packed in a uint64) to the node
// that starts its one recorded occurrence. It is an open-addressing table
// with linear probing and backward-shift deletion, so it needs no
// tombstones and stays compact.
type digramTable struct {
	keys  []uint64
	vals  []int32
	n     int
	shift uint // 64 - log2(len(keys))
}

func newDigramTable() digramTable {
	t := digramTable{}
	t.resize(1 << 10)
	return t
}

func (t *digramTable) resize(size int) {
	old, oldVals := t.keys, t.vals
	t.keys = make([]uint64, size)
	t.vals = make([]int32, size)
	for i := range t.keys {
		t.keys[i] = emptyKey
	}
	bits := uint(0)
	for 1<<bits < size {
		bits++
	}
	t.shift = 64 - bits
	t.n = 0
	for i, k := range old {
		if k != emptyKey {
			t.put(k, oldVals[i])
		}
	}
}

func (t *digramTable) slot(k uint64) int {
	return int((k * 0x9e3779b97f4a7c15) >> t.shift)
}

// get returns the node recorded for k, or -1.
func (t *digramTable) get(k uint64) int32 {
	mask := len(t.keys) - 1
	for i := t.slot(k); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k:
			return t.vals[i]
		case emptyKey:
			return nilNode
		}
	}
}

// put records v for k, which must be absent.
func (t *digramTable) put(k uint64, v int32) {
	if 2*(t.n+1) > len(t.keys) {
		t.resize(2 * len(t.keys))
	}
	mask := len(t.keys) - 1
	i := t.slot(k)
	for t.keys[i] != emptyKey {
		i = (i + 1) & mask
	}
	t.keys[i], t.vals[i] = k, v
	t.n++
}

// del removes k, which must be present, and shifts later entries of its
// probe run back so that every key stays reachable from its home slot.
func (t *digramTable) del(k uint64) {
	mask := len(t.keys) - 1
	i := t.slot(k)
	for t.keys[i] != k {
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; t.keys[j] != emptyKey; j = (j + 1) & mask {
		home := t.slot(t.keys[j])
		// Move j back to the hole at i unless its home lies cyclically
		// in (i, j].
		if (j-home)&mask >= (j-i)&mask {
			t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
			i = j
		}
	}
	t.keys[i] = emptyKey
	t.n--
}
