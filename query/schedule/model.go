package schedule

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// ModelFile is the cost model's file name inside an index directory.
const ModelFile = "cost-model.json"

// Features describe a query before it runs.
type Features struct {
	Terms    int        `json:"terms"`
	Shortest float64    `json:"shortest"` // postings of the shortest list
	Second   float64    `json:"second"`   // postings of the second-shortest list (0 for one term)
	Longest  float64    `json:"longest"`  // postings of the longest list
	Total    float64    `json:"total"`    // postings of all lists
	Mode     query.Mode `json:"mode"`
}

// FeaturesOf reads a query's features off the lexicon. It allocates
// nothing and keeps a small frame: the scheduler calls it on every
// caller's goroutine, often a fresh one, whose stack grows (copied) when
// the frames above it are deep.
func FeaturesOf(ix *index.Index, q query.Query) Features {
	f := Features{Mode: q.Mode}
	for _, t := range q.Terms {
		n, ok := ix.DocFreq(t)
		if !ok {
			continue
		}
		df := float64(n)
		f.Terms++
		f.Total += df
		f.Longest = max(f.Longest, df)
		switch {
		case f.Terms == 1:
			f.Shortest = df
		case df < f.Shortest:
			f.Second, f.Shortest = f.Shortest, df
		case f.Terms == 2 || df < f.Second:
			f.Second = df
		}
	}
	return f
}

// The two forms a processor's cost model can take.
const (
	// FormLog predicts ln(seconds) as a dot product with logVector: costs
	// that grow as powers of the list lengths (pruned CPU engines).
	FormLog = "log"
	// FormLinear predicts seconds as a dot product with linearVector: a
	// fixed cost plus a cost per posting (the GPU answering batches, whose
	// launches are shared and whose work is proportional to the postings).
	FormLinear = "linear"
)

// vectorBuf holds a form's input vector, so that pricing a query
// allocates nothing (the scheduler prices every query, on the caller's
// goroutine).
type vectorBuf [9]float64

// logVector is the log form's input: a constant, the log list lengths (the
// longest list and the others apart: pruned OR engines skip most of the
// longest list, so the two weigh differently), the term count and mode
// indicators. It is written into buf.
func (f Features) logVector(buf *vectorBuf) []float64 {
	*buf = vectorBuf{1, math.Log1p(f.Shortest), math.Log1p(f.Second), math.Log1p(f.Total),
		float64(f.Terms), indicator(f.Mode == query.Or), indicator(f.Mode == query.AndOr),
		math.Log1p(f.Longest), math.Log1p(max(0, f.Total-f.Longest))}
	return buf[:9]
}

// linearVector is the linear form's input: a constant and the mode
// indicators (fixed costs), the term count, and the list lengths in
// millions of postings (costs per posting; AND's work follows its
// shortest lists). It is written into buf.
func (f Features) linearVector(buf *vectorBuf) []float64 {
	const mega = 1e-6
	*buf = vectorBuf{1, indicator(f.Mode == query.Or), indicator(f.Mode == query.AndOr), float64(f.Terms),
		mega * f.Total, mega * f.Longest, mega * f.Shortest, mega * f.Second}
	return buf[:8]
}

func indicator(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}

// Linear is one processor's cost model: the weights of a dot product with
// the features' vector of its form.
type Linear struct {
	Form    string    `json:"form,omitempty"` // FormLog (also when empty) or FormLinear
	Weights []float64 `json:"weights"`
	// ByMode, when the model was fitted on queries of several modes and a
	// model per mode predicted the held-out ones better, holds them: a
	// query of a mode it holds is priced by that mode's model, others by
	// Form and Weights (the fit over every mode). A mode indicator only
	// shifts a cost; per mode, the list lengths weigh as each mode's
	// algorithm spends them (AND: about its shortest lists; pruned OR: the
	// others than the longest).
	ByMode map[query.Mode]Linear `json:"by_mode,omitempty"`
}

func (l Linear) vector(f Features, buf *vectorBuf) []float64 {
	if l.Form == FormLinear {
		return f.linearVector(buf)
	}
	return f.logVector(buf)
}

func (l Linear) predict(f Features) time.Duration {
	if m, ok := l.ByMode[f.Mode]; ok {
		return m.predict(f)
	}
	var buf vectorBuf
	x := l.vector(f, &buf)
	if len(l.Weights) != len(x) {
		return 0
	}
	var y float64
	for i := range x {
		y += l.Weights[i] * x[i]
	}
	if l.Form == FormLinear {
		return time.Duration(max(y, 0) * float64(time.Second))
	}
	return time.Duration(math.Exp(y) * float64(time.Second))
}

// valid reports whether l and its models by mode have known forms and
// their numbers of weights.
func (l Linear) valid() bool {
	for _, m := range l.ByMode {
		if len(m.ByMode) > 0 || !m.valid() {
			return false
		}
	}
	var buf vectorBuf
	return (l.Form == "" || l.Form == FormLog || l.Form == FormLinear) && len(l.Weights) == len(l.vector(Features{}, &buf))
}

// Model predicts a query's time on each processor.
type Model struct {
	CPU Linear `json:"cpu"`
	GPU Linear `json:"gpu"`
	// CPUEngine names the CPU engine (query.New) the CPU model was fitted
	// for, the faster on this index's queries when bench fit compared
	// several; engine=auto runs its CPU work with it. Empty: "cpu".
	CPUEngine string `json:"cpu_engine,omitempty"`
	// CPUAlgorithms, when bench fit timed several CPU engines, holds each
	// one's cost model: a Choice runs every CPU query on the engine
	// predicted fastest for it, and Predict prices it so. Empty: every CPU
	// query runs on CPUEngine, priced by CPU.
	CPUAlgorithms []AlgorithmModel `json:"cpu_algorithms,omitempty"`
	// Held-out mean relative errors measured when the model was fitted.
	CPUError float64 `json:"cpu_mean_relative_error,omitempty"`
	GPUError float64 `json:"gpu_mean_relative_error,omitempty"`
}

// AlgorithmModel is one CPU engine's cost model.
type AlgorithmModel struct {
	Engine string  `json:"engine"` // a query.New name
	Cost   Linear  `json:"cost"`
	Error  float64 `json:"mean_relative_error,omitempty"` // held out, at fitting
}

// CPUEngineName is the CPU engine to run with this model: CPUEngine, or
// "cpu" when it names none.
func (m *Model) CPUEngineName() string { return cmp.Or(m.CPUEngine, "cpu") }

// CPUEngines names the engines a CPU worker runs under m, for reports:
// "exhaustive|cpu|wand|bmw" for a choice, else CPUEngineName.
func (m *Model) CPUEngines() string {
	if len(m.CPUAlgorithms) == 0 {
		return m.CPUEngineName()
	}
	names := make([]string, len(m.CPUAlgorithms))
	for i, a := range m.CPUAlgorithms {
		names[i] = a.Engine
	}
	return strings.Join(names, "|")
}

// CPUChoice is the index in CPUAlgorithms of the engine predicted fastest
// for f, or -1 when the model holds none.
func (m *Model) CPUChoice(f Features) int {
	_, i := m.cpuCost(f)
	return i
}

// cpuCost is the CPU's predicted time for f and the index in
// CPUAlgorithms of the engine predicted fastest, whose time it is (-1 and
// m.CPU's time when the model holds none).
func (m *Model) cpuCost(f Features) (time.Duration, int) {
	if len(m.CPUAlgorithms) == 0 {
		return m.CPU.predict(f), -1
	}
	best, bestCost := 0, m.CPUAlgorithms[0].Cost.predict(f)
	for i, a := range m.CPUAlgorithms[1:] {
		if c := a.Cost.predict(f); c < bestCost {
			best, bestCost = i+1, c
		}
	}
	return bestCost, best
}

// WithCPUEngine returns a copy of m whose CPU queries all run on engine
// name, priced by that engine's own model where m holds one.
func (m *Model) WithCPUEngine(name string) *Model {
	c := *m
	c.CPUEngine, c.CPUAlgorithms = name, nil
	for _, a := range m.CPUAlgorithms {
		if a.Engine == name {
			c.CPU, c.CPUError = a.Cost, a.Error
		}
	}
	return &c
}

// DefaultModel is used when an index has no fitted model. CPU time grows
// with the total postings (about 10 ns each on one core); a GPU answering
// batches spends about 20 us per query and 0.1 ns per posting (round
// figures of the H100 runs in docs/scheduling.md, not a fit: fit a model
// for real use).
func DefaultModel() *Model {
	// CPU: ln t = w0 + w3*ln(1+total), so t = e^w0 * total. GPU: t = w0 +
	// w4*total in millions.
	return &Model{
		CPU: Linear{Form: FormLog, Weights: []float64{math.Log(10e-9), 0, 0, 1, 0, 0, 0, 0, 0}},
		GPU: Linear{Form: FormLinear, Weights: []float64{20e-6, 0, 0, 0, 0.1e-3, 0, 0, 0}},
	}
}

// Predict returns the predicted CPU and GPU times, at least a microsecond
// each (the queues compare their ratios).
// With CPUAlgorithms, the CPU time is that of the engine CPUChoice picks.
func (m *Model) Predict(f Features) (cpu, gpu time.Duration) {
	cpu, gpu, _ = m.predictChoice(f)
	return cpu, gpu
}

// predictChoice is Predict, and CPUChoice of the same features.
func (m *Model) predictChoice(f Features) (cpu, gpu time.Duration, choice int) {
	cpu, choice = m.cpuCost(f)
	return max(cpu, time.Microsecond), max(m.GPU.predict(f), time.Microsecond), choice
}

// Sample is one measured query.
type Sample struct {
	Features Features      `json:"features"`
	CPU      time.Duration `json:"cpu_ns"`
	GPU      time.Duration `json:"gpu_ns"` // 0 when not measured
}

// Fit fits a model on samples, holding out every holdOut-th sample (0:
// none) to measure the mean relative error. Each processor's model is
// fitted in both forms, by least squares (on ln(time) for FormLog, on
// time relative to itself for FormLinear), and the form with the lower
// held-out error (training error without a held-out set) is kept.
func Fit(samples []Sample, holdOut int) (*Model, error) {
	var train, test []Sample
	for i, s := range samples {
		if holdOut > 0 && i%holdOut == holdOut-1 {
			test = append(test, s)
		} else {
			train = append(train, s)
		}
	}
	m := DefaultModel()
	cpu := func(s Sample) time.Duration { return s.CPU }
	gpu := func(s Sample) time.Duration { return s.GPU }
	if len(test) == 0 {
		test = train
	}
	var err error
	if m.CPU, m.CPUError, err = fitBest(train, test, cpu); err != nil {
		return nil, fmt.Errorf("schedule: fit cpu: %w", err)
	}
	if hasGPU(train) {
		if m.GPU, m.GPUError, err = fitBest(train, test, gpu); err != nil {
			return nil, fmt.Errorf("schedule: fit gpu: %w", err)
		}
	}
	return m, nil
}

// FitChoice fits a model for a CPU that picks its engine per query.
// samples[c] times the same queries, in the same order, on CPU engine
// names[c] (GPU times are read from samples[0]). Each engine's cost model
// is fitted as in Fit; the model's CPUEngine, the fallback, is the engine
// fastest over all the samples, and CPU its cost model. The choice is kept
// only when the held-out queries (all of them when holdOut is 0) take less
// time in all on the engines it picks than on the fallback: where the
// models cannot tell the engines apart (short, noisy timings) one engine
// is the safer bet. CPUError is the held-out error of what is kept (for
// the choice, the cheapest prediction against the chosen engine's time).
func FitChoice(names []string, samples [][]Sample, holdOut int) (*Model, error) {
	if len(names) == 0 || len(names) != len(samples) {
		return nil, errors.New("schedule: fit choice: one sample set per engine needed")
	}
	m := &Model{CPUAlgorithms: make([]AlgorithmModel, len(names))}
	var fastest time.Duration
	for c, name := range names {
		if len(samples[c]) != len(samples[0]) {
			return nil, fmt.Errorf("schedule: fit choice: %s has %d samples, %s %d", name, len(samples[c]), names[0], len(samples[0]))
		}
		fit, err := Fit(samples[c], holdOut)
		if err != nil {
			return nil, fmt.Errorf("schedule: fit choice: %s: %w", name, err)
		}
		m.CPUAlgorithms[c] = AlgorithmModel{Engine: name, Cost: fit.CPU, Error: fit.CPUError}
		var total time.Duration
		for _, s := range samples[c] {
			total += s.CPU
		}
		if c == 0 || total < fastest {
			fastest = total
			m.CPUEngine, m.CPU, m.GPU, m.GPUError = name, fit.CPU, fit.GPU, fit.GPUError
		}
	}
	fallback := slices.Index(names, m.CPUEngine)
	var sum float64
	var n int
	var chosenTime, fallbackTime time.Duration
	for i, s := range Chosen(m, names, samples) {
		if holdOut > 0 && i%holdOut != holdOut-1 || s.CPU <= 0 {
			continue
		}
		cpu, _ := m.Predict(s.Features)
		sum += math.Abs(float64(cpu-s.CPU)) / float64(s.CPU)
		n++
		chosenTime += s.CPU
		fallbackTime += samples[fallback][i].CPU
	}
	if len(names) == 1 || chosenTime >= fallbackTime {
		m.CPUAlgorithms, m.CPUError = nil, m.CPUAlgorithms[fallback].Error
	} else if n > 0 {
		m.CPUError = sum / float64(n)
	}
	return m, nil
}

// Chosen is samples[0] with each query's CPU time that of the engine m
// runs it on, samples[c] timing engine names[c] as in FitChoice: the one
// m picks for it, or, when m holds no choice, m's CPU engine for every
// query (engine 0 if names lacks it).
func Chosen(m *Model, names []string, samples [][]Sample) []Sample {
	engine := max(slices.Index(names, m.CPUEngineName()), 0)
	chosen := make([]Sample, len(samples[0]))
	for i, s := range samples[0] {
		c := engine
		if len(m.CPUAlgorithms) > 0 {
			c = m.CPUChoice(s.Features)
		}
		chosen[i] = s
		chosen[i].CPU = samples[c][i].CPU
	}
	return chosen
}

// fitBest fits both forms on train and returns the one with the lower
// mean relative error on test, and that error. When train holds several
// modes, each mode is also fitted on its own (fitForms), and the models by
// mode are kept when they predict test better.
func fitBest(train, test []Sample, y func(Sample) time.Duration) (Linear, float64, error) {
	best, bestErr, err := fitForms(train, test, y)
	if err != nil {
		return Linear{}, 0, err
	}
	modes := map[query.Mode][]Sample{}
	for _, s := range train {
		modes[s.Features.Mode] = append(modes[s.Features.Mode], s)
	}
	if len(modes) < 2 {
		return best, bestErr, nil
	}
	split := best
	split.ByMode = map[query.Mode]Linear{}
	for mode, tr := range modes {
		var te []Sample
		for _, s := range test {
			if s.Features.Mode == mode {
				te = append(te, s)
			}
		}
		if len(te) == 0 {
			te = tr
		}
		if l, _, err := fitForms(tr, te, y); err == nil {
			split.ByMode[mode] = l
		}
	}
	if e := meanRelativeError(split, test, y); len(split.ByMode) > 0 && e < bestErr {
		return split, e, nil
	}
	return best, bestErr, nil
}

// fitForms fits both forms on train and returns the one with the lower
// mean relative error on test, and that error.
func fitForms(train, test []Sample, y func(Sample) time.Duration) (Linear, float64, error) {
	var best Linear
	bestErr := math.Inf(1)
	var firstErr error
	for _, form := range []string{FormLog, FormLinear} {
		l, err := fitForm(form, train, y)
		if err != nil {
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		if e := meanRelativeError(l, test, y); e < bestErr {
			best, bestErr = l, e
		}
	}
	if math.IsInf(bestErr, 1) {
		return Linear{}, 0, firstErr
	}
	return best, bestErr, nil
}

func hasGPU(samples []Sample) bool {
	for _, s := range samples {
		if s.GPU > 0 {
			return true
		}
	}
	return false
}

// fitForm solves the ridge-regularised normal equations of a form: for
// FormLog, x.w = ln t; for FormLinear, (x/t).w = 1, which minimises the
// squared relative error. The ridge is relative to the largest diagonal
// entry, so that a feature constant over the samples (a mode indicator
// when all are OR) leaves the system solvable in either form's scale.
func fitForm(form string, samples []Sample, y func(Sample) time.Duration) (Linear, error) {
	const ridge = 1e-9
	l := Linear{Form: form}
	var buf vectorBuf
	n := len(l.vector(Features{}, &buf))
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, n+1)
	}
	used := 0
	for _, s := range samples {
		t := y(s)
		if t <= 0 {
			continue
		}
		used++
		x := l.vector(s.Features, &buf)
		target := math.Log(t.Seconds())
		if form == FormLinear {
			for i := range x {
				x[i] /= t.Seconds()
			}
			target = 1
		}
		for i := range n {
			for j := range n {
				a[i][j] += x[i] * x[j]
			}
			a[i][n] += x[i] * target
		}
	}
	if used < n {
		return Linear{}, fmt.Errorf("%d usable samples, need at least %d", used, n)
	}
	var diag float64
	for i := range n {
		diag = max(diag, a[i][i])
	}
	for i := range n {
		a[i][i] += ridge*diag + 1e-12
	}
	var err error
	l.Weights, err = solve(a)
	return l, err
}

// solve runs Gaussian elimination with partial pivoting on the augmented
// matrix a (n rows, n+1 columns).
func solve(a [][]float64) ([]float64, error) {
	n := len(a)
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-12 {
			return nil, errors.New("singular system")
		}
		a[c], a[p] = a[p], a[c]
		for r := c + 1; r < n; r++ {
			f := a[r][c] / a[c][c]
			for k := c; k <= n; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	w := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := a[r][n]
		for k := r + 1; k < n; k++ {
			s -= a[r][k] * w[k]
		}
		w[r] = s / a[r][r]
	}
	return w, nil
}

// meanRelativeError is mean(|predicted - actual| / actual) over samples
// that have a measurement; 0 when none do.
func meanRelativeError(l Linear, samples []Sample, y func(Sample) time.Duration) float64 {
	var sum float64
	var n int
	for _, s := range samples {
		if t := y(s); t > 0 {
			sum += math.Abs(float64(l.predict(s.Features)-t)) / float64(t)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// LoadModel reads the model beside an index; with none there it returns
// DefaultModel and ok = false.
func LoadModel(indexDir string) (m *Model, ok bool, err error) {
	m, err = ReadModel(filepath.Join(indexDir, ModelFile))
	if errors.Is(err, os.ErrNotExist) {
		return DefaultModel(), false, nil
	}
	return m, err == nil, err
}

// ReadModel reads a model file written by Save.
func ReadModel(path string) (*Model, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	m := &Model{}
	if err := json.Unmarshal(raw, m); err != nil {
		return nil, fmt.Errorf("schedule: %s: %w", path, err)
	}
	valid := m.CPU.valid() && m.GPU.valid()
	for _, a := range m.CPUAlgorithms {
		valid = valid && a.Cost.valid() && a.Engine != ""
	}
	if !valid {
		return nil, fmt.Errorf("schedule: %s: a processor's form or number of weights is not this gpusearch's (a model of an older one: refit it with gpusearch bench fit)", path)
	}
	return m, nil
}

// Save writes the model beside an index.
func (m *Model) Save(indexDir string) error {
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(indexDir, "."+ModelFile+".tmp")
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	return os.Rename(tmp, filepath.Join(indexDir, ModelFile))
}
