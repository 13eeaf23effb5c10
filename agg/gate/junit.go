package gate

import (
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/evalmd/evalmd/agg/load"
	"github.com/evalmd/evalmd/agg/stats"
)

// JUnit writes the graded answers as JUnit XML, the format CI test
// reporters read (GitLab's test reports, Jenkins' junit step, GitHub's
// test-report actions), valid under Apache Ant's schema as windyroad's
// JUnit.xsd states it: a testsuite per model (every attribute and element
// that schema requires: name, package, id, timestamp, hostname, tests,
// failures, errors, time; properties, system-out, system-err), a testcase
// per question (name the question's, classname its sheet), and in it a
// failure where an answer was graded wrong (its ground truth in the text),
// an error where the model call failed, skipped where nothing was graded.
// A question answered several times (epochs) is one testcase, failed when
// its score under the reducer (Folders.Reducer) is below 1: with mean and
// all-correct when any answer was wrong, with majority when most were
// not right, with pass@K when K answers drawn may all be wrong. now is the suites' timestamp. With a baseline
// whose runs the folder holds too, the answers counted are Compare's: of
// a sheet and model run again since, what the new runs carry.
func JUnit(w io.Writer, f Folders, now time.Time) error {
	d, keep := f.Current, f.current()
	idx, _ := d.Units(false)
	// A row of each model's answers to each question: its names and the
	// ground truth the model's last answer was graded against.
	type mq struct {
		m load.Str
		q int32
	}
	last := map[mq]int{}
	for i := range d.Rows() {
		if idx[i] >= 0 && keep(i) {
			last[mq{d.Rows()[i].Model, idx[i]}] = i
		}
	}
	by := d.Tallies(idx, keep, true)
	models := map[string]load.Str{}
	for m := range by {
		models[d.Str(m)] = m
	}
	usages := map[string]load.Usage{}
	for _, u := range d.Usages() {
		usages[u.Model] = u
	}
	doc := junitSuites{}
	stamp := now.UTC().Format("2006-01-02T15:04:05")
	for id, name := range slices.Sorted(maps.Keys(models)) {
		m := models[name]
		s := junitSuite{Name: tokenOr(name, "(no model name)"), Package: "evalmd", ID: id, Timestamp: stamp, Hostname: "localhost", Time: "0"}
		if u := usages[name]; u.TimeQuestions > 0 {
			s.Time = fmt.Sprintf("%.3f", u.Seconds)
		}
		for _, a := range by[m] {
			r := &d.Rows()[last[mq{m, a.Q}]]
			tc := testCase(d, f.Reducer, r, a)
			switch {
			case tc.Error != nil:
				s.Errors++
			case tc.Failure != nil:
				s.Failures++
			case tc.Skipped != nil:
				s.Skipped++
			}
			s.Cases = append(s.Cases, tc)
		}
		s.Tests = len(s.Cases)
		doc.Suites = append(doc.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("agg: JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// testCase is the testcase of one model's answers a to the question of
// row r.
func testCase(d *load.Data, red stats.Reducer, r *load.Row, a load.Tally) junitCase {
	name := d.Str(r.Name)
	if r.Occ > 0 {
		name = fmt.Sprintf("%s (#%d)", name, r.Occ+1)
	}
	tc := junitCase{Name: name, Classname: d.Str(r.Sheet), Time: "0"}
	all := a.N + a.U
	switch {
	case a.E > 0:
		tc.Error = &junitResult{Type: "error", Message: fmt.Sprintf("the model call failed (%d of %d answers)", a.E, all)}
	case a.N > 0 && red.Reduce(int(a.C), int(a.N)) < 1:
		msg := "graded wrong"
		if a.N > 1 {
			msg = fmt.Sprintf("graded wrong: %d of %d answers right, %s %.3f", a.C, a.N, red, red.Reduce(int(a.C), int(a.N)))
		}
		text := "ground truth: (none)"
		if r.Truth != load.NoStr {
			text = "ground truth: " + d.Str(r.Truth)
		}
		tc.Failure = &junitResult{Type: "wrong", Message: msg, Text: text}
	case a.N == 0:
		tc.Skipped = &junitSkipped{Message: "not graded"}
	}
	return tc
}

// tokenOr is s, or alt when s is empty once its white space is collapsed
// (the schema's names are non-empty tokens).
func tokenOr(s, alt string) string {
	if strings.TrimSpace(s) == "" {
		return alt
	}
	return s
}

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string      `xml:"name,attr"`
	Package    string      `xml:"package,attr"`
	ID         int         `xml:"id,attr"`
	Timestamp  string      `xml:"timestamp,attr"`
	Hostname   string      `xml:"hostname,attr"`
	Tests      int         `xml:"tests,attr"`
	Failures   int         `xml:"failures,attr"`
	Errors     int         `xml:"errors,attr"`
	Skipped    int         `xml:"skipped,attr"`
	Time       string      `xml:"time,attr"`
	Properties struct{}    `xml:"properties"`
	Cases      []junitCase `xml:"testcase"`
	SystemOut  string      `xml:"system-out"`
	SystemErr  string      `xml:"system-err"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitSkipped `xml:"skipped"`
	Error     *junitResult  `xml:"error"`
	Failure   *junitResult  `xml:"failure"`
}

type junitResult struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}
