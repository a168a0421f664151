package peer

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// palette colours the runs of a panel, in Spec order.
var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
}

// Plot writes a PNG to path with one panel a report: for each engine a group
// of bars, one a run (mode and k), whose height is the mean latency on a
// log scale, with the p99 latency drawn as a tick above or inside the bar.
func Plot(path string, reps []*Report) error {
	if len(reps) == 0 {
		return fmt.Errorf("peer: nothing to plot")
	}
	rows := make([][]*plot.Plot, len(reps))
	for i, rep := range reps {
		p, err := panel(rep)
		if err != nil {
			return err
		}
		rows[i] = []*plot.Plot{p}
	}
	const width, rowHeight = 8 * vg.Inch, 3.6 * vg.Inch
	img := vgimg.New(width, rowHeight*vg.Length(len(reps)))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(reps), Cols: 1, PadTop: 4, PadBottom: 4, PadLeft: 4, PadRight: 4, PadY: 8}
	canvases := plot.Align(rows, tiles, dc)
	for i := range rows {
		rows[i][0].Draw(canvases[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// panel draws one report.
func panel(rep *Report) (*plot.Plot, error) {
	if len(rep.Engines) == 0 || len(rep.Engines[0].Runs) == 0 {
		return nil, fmt.Errorf("peer: report of %s has no run to plot", rep.Crawl)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %d documents, %d queries, one thread; bar: mean, tick: p99",
		shortPath(rep.Crawl), rep.Documents, rep.Queries)
	p.Y.Label.Text = "CPU µs per query"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = inRange{plot.LogTicks{Prec: -1}}
	p.Add(plotter.NewGrid())
	names := make([]string, len(rep.Engines))
	for i, e := range rep.Engines {
		names[i] = e.Name
	}
	p.NominalX(names...)
	specs := rep.Engines[0].Runs
	width := 0.8 / float64(len(specs))
	for si, s := range specs {
		b := &logBars{
			Color:  palette[si%len(palette)],
			Offset: (float64(si) - float64(len(specs)-1)/2) * width,
			Width:  width,
		}
		for _, e := range rep.Engines {
			if si >= len(e.Runs) || e.Runs[si].Spec != s.Spec {
				return nil, fmt.Errorf("peer: engine %s of %s lacks run %s", e.Name, rep.Crawl, s.Spec)
			}
			b.Mean = append(b.Mean, e.Runs[si].CPUMeanUS)
			b.P99 = append(b.P99, e.Runs[si].CPUP99US)
		}
		p.Add(b)
		p.Legend.Add(fmt.Sprintf("%s top-%d", s.Mode, s.K), b)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	return p, nil
}

// shortPath returns the last two elements of a path ("rust-doc/html").
func shortPath(path string) string {
	dir, base := filepath.Split(filepath.Clean(path))
	return filepath.Join(filepath.Base(dir), base)
}

// inRange keeps the ticks of a Ticker that lie inside the axis range:
// LogTicks also returns the powers of ten just outside it, which gonum then
// reserves room for above the data.
type inRange struct{ plot.Ticker }

// Ticks returns the ticks within [min, max].
func (t inRange) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for _, tk := range t.Ticker.Ticks(min, max) {
		if tk.Value >= min && tk.Value <= max {
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// logBars is a bar chart for a log-scaled Y axis: each bar rises from the
// bottom of the plot area (a log axis has no zero) to Mean[i], at x = i +
// Offset, Width wide in X units; P99[i] is a tick across it.
type logBars struct {
	Mean, P99     []float64
	Color         color.Color
	Offset, Width float64
}

// Plot draws the bars.
func (b *logBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	tick := draw.LineStyle{Color: color.Black, Width: vg.Points(1.2)}
	for i, v := range b.Mean {
		if !(v > 0) {
			continue
		}
		x0 := trX(float64(i) + b.Offset - b.Width/2)
		x1 := trX(float64(i) + b.Offset + b.Width/2)
		top := trY(v)
		c.FillPolygon(b.Color, c.ClipPolygonY([]vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: top}, {X: x0, Y: top}}))
		if p := b.P99[i]; p > 0 {
			y := trY(p)
			if c.ContainsY(y) {
				c.StrokeLine2(tick, x0, y, x1, y)
			}
		}
	}
}

// DataRange spans the bars and the ticks, with room below the smallest and,
// for the legend, above the largest.
func (b *logBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for i, v := range b.Mean {
		for _, y := range []float64{v, b.P99[i]} {
			if y > 0 {
				ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
			}
		}
	}
	if math.IsInf(ymin, 1) {
		ymin, ymax = 1, 10
	}
	return -0.5, float64(len(b.Mean)) - 0.5, ymin / 2, ymax * 6
}

// Thumbnail draws the legend's swatch.
func (b *logBars) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(b.Color, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}})
}
