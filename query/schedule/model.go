package schedule

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
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

// FeaturesOf reads a query's features off the lexicon.
func FeaturesOf(ix *index.Index, q query.Query) Features {
	f := Features{Mode: q.Mode}
	var lens []float64
	for _, t := range q.Terms {
		if info, ok := ix.Lookup(t); ok {
			lens = append(lens, float64(info.DF))
			f.Total += float64(info.DF)
		}
	}
	sort.Float64s(lens)
	f.Terms = len(lens)
	if len(lens) > 0 {
		f.Shortest = lens[0]
	}
	if len(lens) > 1 {
		f.Second = lens[1]
	}
	if len(lens) > 0 {
		f.Longest = lens[len(lens)-1]
	}
	return f
}

// vector is the regression input: a constant, the log list lengths (the
// longest list and the others apart: pruned OR engines skip most of the
// longest list, so the two weigh differently), the term count and mode
// indicators.
func (f Features) vector() []float64 {
	b := func(ok bool) float64 {
		if ok {
			return 1
		}
		return 0
	}
	return []float64{1, math.Log1p(f.Shortest), math.Log1p(f.Second), math.Log1p(f.Total),
		float64(f.Terms), b(f.Mode == query.Or), b(f.Mode == query.AndOr),
		math.Log1p(f.Longest), math.Log1p(max(0, f.Total-f.Longest))}
}

// Linear predicts ln(seconds) as a dot product with Features.vector.
type Linear struct {
	Weights []float64 `json:"weights"`
}

func (l Linear) predict(f Features) time.Duration {
	x := f.vector()
	if len(l.Weights) != len(x) {
		return 0
	}
	var y float64
	for i := range x {
		y += l.Weights[i] * x[i]
	}
	return time.Duration(math.Exp(y) * float64(time.Second))
}

// Model predicts a query's time on each processor.
type Model struct {
	CPU Linear `json:"cpu"`
	GPU Linear `json:"gpu"`
	// CPUEngine names the CPU engine (query.New) the CPU model was fitted
	// for, the faster on this index's queries when bench fit compared
	// several; engine=auto runs its CPU work with it. Empty: "cpu".
	CPUEngine string `json:"cpu_engine,omitempty"`
	// Held-out mean relative errors measured when the model was fitted.
	CPUError float64 `json:"cpu_mean_relative_error,omitempty"`
	GPUError float64 `json:"gpu_mean_relative_error,omitempty"`
}

// CPUEngineName is the CPU engine to run with this model: CPUEngine, or
// "cpu" when it names none.
func (m *Model) CPUEngineName() string { return cmp.Or(m.CPUEngine, "cpu") }

// DefaultModel is used when an index has no fitted model. CPU time grows
// with the total postings (about 10 ns each on one core, 2 us fixed); the
// GPU pays about 60 us of launches and copies per query and then about
// 0.5 ns per posting. These are round figures from the third paper's shape,
// not measurements: fit a model for real use.
func DefaultModel() *Model {
	// ln t = w0 + w3*ln(1+total): t = e^w0 * total^w3 with w3 = 1.
	return &Model{
		CPU: Linear{Weights: []float64{math.Log(10e-9), 0, 0, 1, 0, 0, 0, 0, 0}},
		GPU: Linear{Weights: []float64{math.Log(0.5e-9), 0, 0, 1, 0, 0, 0, 0, 0}},
	}
}

// Predict returns the predicted CPU and GPU times. The GPU's fixed cost is
// a floor under its prediction.
func (m *Model) Predict(f Features) (cpu, gpu time.Duration) {
	return m.CPU.predict(f), max(m.GPU.predict(f), gpuFloor)
}

// gpuFloor is the least a GPU query costs: launches and result copies.
const gpuFloor = 60 * time.Microsecond

// Sample is one measured query.
type Sample struct {
	Features Features      `json:"features"`
	CPU      time.Duration `json:"cpu_ns"`
	GPU      time.Duration `json:"gpu_ns"` // 0 when not measured
}

// Fit fits a model on samples by least squares on ln(time), holding out
// every holdOut-th sample (0: none) to measure the mean relative error.
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
	var err error
	if m.CPU, err = fitLinear(train, cpu); err != nil {
		return nil, fmt.Errorf("schedule: fit cpu: %w", err)
	}
	if hasGPU(train) {
		if m.GPU, err = fitLinear(train, gpu); err != nil {
			return nil, fmt.Errorf("schedule: fit gpu: %w", err)
		}
	}
	m.CPUError = meanRelativeError(m.CPU, test, cpu)
	m.GPUError = meanRelativeError(m.GPU, test, gpu)
	return m, nil
}

func hasGPU(samples []Sample) bool {
	for _, s := range samples {
		if s.GPU > 0 {
			return true
		}
	}
	return false
}

// fitLinear solves the ridge-regularised normal equations.
func fitLinear(samples []Sample, y func(Sample) time.Duration) (Linear, error) {
	const ridge = 1e-6
	n := len(Features{}.vector())
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, n+1)
		a[i][i] = ridge
	}
	used := 0
	for _, s := range samples {
		t := y(s)
		if t <= 0 {
			continue
		}
		used++
		x := s.Features.vector()
		ly := math.Log(t.Seconds())
		for i := range n {
			for j := range n {
				a[i][j] += x[i] * x[j]
			}
			a[i][n] += x[i] * ly
		}
	}
	if used < n {
		return Linear{}, fmt.Errorf("%d usable samples, need at least %d", used, n)
	}
	w, err := solve(a)
	return Linear{Weights: w}, err
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
	raw, err := os.ReadFile(filepath.Join(indexDir, ModelFile))
	if errors.Is(err, os.ErrNotExist) {
		return DefaultModel(), false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("schedule: %w", err)
	}
	m = &Model{}
	if err := json.Unmarshal(raw, m); err != nil {
		return nil, false, fmt.Errorf("schedule: %s: %w", ModelFile, err)
	}
	n := len(Features{}.vector())
	if len(m.CPU.Weights) != n || len(m.GPU.Weights) != n {
		return nil, false, fmt.Errorf("schedule: %s: want %d weights per processor (a model of an older gpusearch: refit it with gpusearch bench fit)", ModelFile, n)
	}
	return m, true, nil
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
