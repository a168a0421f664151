package gpu

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/gpusearch/gpusearch/analytics"
	"github.com/gpusearch/gpusearch/internal/cuda"
)

// textInput is a corpus's words as text on the device, with its
// dictionary laid out for lookups (dictTable), for the baseline that
// starts from text (UploadText).
type textInput struct {
	nchunks                                             int
	nslots                                              uint64
	text, dict, dictOff, slots, words, lines, sums, err *cuda.Buffer
}

// UploadText puts c on the device for the uncompressed baseline that
// starts from text (analyze --plain --text): c's words written as text
// (Corpus.Text) and its dictionary's hash table. Every Run first turns
// the text into the word ids of c.Plain()'s root on the device,
// tokenising each word, hashing it and looking it up, then runs the task
// on them as on an UploadCorpus(c.Plain()); that step is part of the
// run's time. The dictionary is given, as a text engine's would not be:
// the baseline pays for reading text, not for building a vocabulary.
func (d *Device) UploadText(c *analytics.Corpus) (*Corpus, error) {
	text, err := c.Text()
	if err != nil {
		return nil, err
	}
	return d.uploadText(c, text)
}

// uploadText is UploadText with the text given (tests damage it).
func (d *Device) uploadText(c *analytics.Corpus, text []byte) (*Corpus, error) {
	tab, err := newDictTable(c.Dict)
	if err != nil {
		return nil, err
	}
	a, err := d.UploadCorpus(c.Plain())
	if err != nil {
		return nil, err
	}
	// The root is the text's to fill: no word of it stays from the upload.
	if err := a.root.Fill32(0); err != nil {
		a.Free()
		return nil, err
	}
	padded := padText(text)
	t := &textInput{nchunks: len(padded) / textChunk, nslots: uint64(len(tab.slots))}
	a.text = t
	err = func() error {
		for _, u := range []struct {
			dst **cuda.Buffer
			src []byte
		}{{&t.text, padded}, {&t.dict, tab.bytes}} {
			var err error
			if *u.dst, err = uploadBytes(d.c, u.src); err != nil {
				return err
			}
		}
		var err error
		if t.dictOff, err = cuda.Upload(d.c, tab.off); err != nil {
			return err
		}
		if t.slots, err = cuda.Upload(d.c, tab.slots); err != nil {
			return err
		}
		for _, u := range []struct {
			dst **cuda.Buffer
			n   int
		}{{&t.words, t.nchunks}, {&t.lines, t.nchunks}, {&t.sums, (t.nchunks + scanBlock - 1) / scanBlock}, {&t.err, 1}} {
			if *u.dst, err = d.c.Alloc(4 * int64(u.n)); err != nil {
				return err
			}
		}
		return t.err.Fill32(0)
	}()
	if err != nil {
		a.Free()
		return nil, fmt.Errorf("gpu: upload text: %w", err)
	}
	return a, nil
}

// uploadBytes allocates a buffer and copies b into it (zero bytes after
// it up to a multiple of 4).
func uploadBytes(d *cuda.Device, b []byte) (*cuda.Buffer, error) {
	w := make([]uint32, (len(b)+3)/4)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), 4*len(w)), b)
	return cuda.Upload(d, w)
}

func (t *textInput) free() error {
	if t == nil {
		return nil
	}
	return cuda.FreeAll(t.text, t.dict, t.dictOff, t.slots, t.words, t.lines, t.sums, t.err)
}

// tokenize writes the word ids of the text into the root: text_counts,
// a scan of each count, text_words. It returns its device time.
func (t *textInput) tokenize(a *Corpus) (time.Duration, error) {
	g := a.c.Grammar
	return a.d.Timed(func() error {
		if err := launchTextCounts(a, t.nchunks, analyticsCTA, ptr(t.text), ptr(t.words), ptr(t.lines)); err != nil {
			return err
		}
		for _, v := range []*cuda.Buffer{t.words, t.lines} {
			if err := a.scan(v, t.nchunks, t.sums); err != nil {
				return err
			}
		}
		return launchTextWords(a, t.nchunks, analyticsCTA, ptr(t.text), uint64(t.nchunks*textChunk), ptr(t.words), ptr(t.lines),
			ptr(t.dict), ptr(t.dictOff), ptr(t.slots), t.nslots,
			ptr(a.fileStart), uint64(g.NumFiles()), ptr(a.root), uint64(len(g.Root)), ptr(t.err))
	})
}

// errTextMismatch is what a text that is not the corpus's gets.
var errTextMismatch = errors.New("gpu: the text does not match the corpus (a word outside the dictionary, or documents of other lengths)")

// check reads the text kernels' error flag.
func (t *textInput) check() error {
	flag, err := t.err.Uint32At(0)
	if err != nil {
		return err
	}
	if flag != 0 {
		return errTextMismatch
	}
	return nil
}
