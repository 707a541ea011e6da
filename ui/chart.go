package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Charts are SVG drawn on the server (the pages run no script): each is laid
// out here as shapes the template writes, and none relies on colour alone.
// A series of bars has its own fill pattern, a series of lines its own dash
// and marker, and both are named in the legend and, for lines, at the end
// of the line; the numbers are also in a table beside the chart.

// Chart geometry, in SVG user units.
const (
	chartW, chartH = 640, 220
	padL, padR     = 48, 96 // room for the axis labels, and for lines' names on the right
	padT, padB     = 10, 28
)

// chart is one chart: Kind "bars" (stacked) or "lines", one value per step
// per series.
type chart struct {
	ID     string // unique on the page: the patterns' ids start with it
	Title  string
	Unit   string
	Kind   string
	Steps  []string // each step's label
	Series []series
	// Laid out by layout:
	W, H   int
	Max    float64
	Ticks  []tick
	XTicks []tick
	Bars   []bar
	Lines  []line
}

type series struct {
	Name   string
	Values []float64
}

type tick struct {
	Pos   float64
	Label string
}

type bar struct {
	X, Y, W, H float64
	Series     int
	Title      string // its tooltip: series, step and value
}

type line struct {
	Name           string
	Points         string
	Dash           string
	Markers        []marker
	LabelX, LabelY float64 // its name, right of its last point
	Series         int
	MarkerShape    string
}

// marker is a line's mark at one step: a circle at X, Y, a square from
// X-3, Y-3, or a polygon through Poly, by its line's series.
type marker struct {
	Shape string
	X, Y  float64
	Poly  string
	Title string
}

// mark places a marker of shape at x, y.
func mark(shape string, x, y float64, title string) marker {
	m := marker{Shape: shape, X: x, Y: y, Title: title}
	pt := func(dx, dy float64) string {
		return strconv.FormatFloat(x+dx, 'f', 1, 64) + "," + strconv.FormatFloat(y+dy, 'f', 1, 64)
	}
	switch shape {
	case "square":
		m.X, m.Y = x-3, y-3
	case "diamond":
		m.Shape, m.Poly = "polygon", strings.Join([]string{pt(0, -4.5), pt(4.5, 0), pt(0, 4.5), pt(-4.5, 0)}, " ")
	case "triangle":
		m.Shape, m.Poly = "polygon", strings.Join([]string{pt(0, -4.5), pt(4.5, 4), pt(-4.5, 4)}, " ")
	}
	return m
}

// dashes and markers tell lines apart without colour.
var (
	dashes  = []string{"", "6 3", "2 3", "10 3 2 3", "1 5", "12 6", "4 2 1 2", "8 2"}
	markers = []string{"circle", "square", "diamond", "triangle"}
)

// patterns is how many bar fills the template defines.
const patterns = 8

// layout places the chart's shapes.
func (c *chart) layout() *chart {
	c.W, c.H = chartW, chartH
	for _, s := range c.Series {
		for i, v := range s.Values {
			if c.Kind == "bars" {
				if i < len(c.Steps) {
					c.Max = math.Max(c.Max, c.stackAt(i))
				}
				continue
			}
			c.Max = math.Max(c.Max, v)
		}
	}
	top := niceCeil(c.Max)
	for i := 0; i <= 4; i++ {
		v := top * float64(i) / 4
		c.Ticks = append(c.Ticks, tick{Pos: c.y(v, top), Label: short(v)})
	}
	n := len(c.Steps)
	slot := float64(chartW-padL-padR) / float64(max(n, 1))
	every := max(1, n/8)
	for i := 0; i < n; i += every {
		c.XTicks = append(c.XTicks, tick{Pos: padL + slot*(float64(i)+0.5), Label: c.Steps[i]})
	}
	if c.Kind == "bars" {
		c.layoutBars(slot, top)
	} else {
		c.layoutLines(slot, top)
	}
	return c
}

func (c *chart) stackAt(i int) float64 {
	sum := 0.0
	for _, s := range c.Series {
		sum += s.Values[i]
	}
	return sum
}

func (c *chart) y(v, top float64) float64 {
	if top == 0 {
		return chartH - padB
	}
	return chartH - padB - v/top*float64(chartH-padT-padB)
}

func (c *chart) layoutBars(slot, top float64) {
	w := math.Max(slot*0.7, 1)
	for i := range c.Steps {
		base := 0.0
		for si, s := range c.Series {
			v := s.Values[i]
			if v == 0 {
				continue
			}
			y0, y1 := c.y(base, top), c.y(base+v, top)
			c.Bars = append(c.Bars, bar{X: padL + slot*float64(i) + (slot-w)/2, Y: y1, W: w, H: y0 - y1, Series: si % patterns,
				Title: fmt.Sprintf("%s, %s: %s", s.Name, c.Steps[i], short(v))})
			base += v
		}
	}
}

func (c *chart) layoutLines(slot, top float64) {
	for si, s := range c.Series {
		l := line{Name: s.Name, Dash: dashes[si%len(dashes)], Series: si % patterns, MarkerShape: markers[si%len(markers)]}
		var pts []string
		for i, v := range s.Values {
			x, y := padL+slot*(float64(i)+0.5), c.y(v, top)
			pts = append(pts, strconv.FormatFloat(x, 'f', 1, 64)+","+strconv.FormatFloat(y, 'f', 1, 64))
			l.Markers = append(l.Markers, mark(l.MarkerShape, x, y, fmt.Sprintf("%s, %s: %s", s.Name, c.Steps[i], short(v))))
			l.LabelX, l.LabelY = x+8, y+4
		}
		l.Points = strings.Join(pts, " ")
		c.Lines = append(c.Lines, l)
	}
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten (at least 1), so
// the axis reads in round numbers.
func niceCeil(v float64) float64 {
	if v <= 1 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// short writes a value as briefly as it reads: whole numbers whole.
func short(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// Cell is series s's value at step i, for the chart's table.
func (c *chart) Cell(s, i int) string { return short(c.Series[s].Values[i]) }
