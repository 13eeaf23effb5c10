package table

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalmd/evalmd/internal/mdcell"
	"github.com/evalmd/evalmd/internal/pandastext"
)

var nan = math.NaN()

// readCSV reads a CSV (sep ',') or TSV (sep '\t') table with a header row.
// Blank lines are skipped and short rows padded with empty cells, as
// read_csv does; a row longer than the header is an error naming its line.
// name labels errors.
func readCSV(ctx context.Context, r io.Reader, name string, sep rune, opt Options) (*Table, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.Comma = sep
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return &Table{Name: name, Text: true}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	if err := checkText(name, 1, header); err != nil {
		return nil, err
	}
	t := &Table{Name: name, Text: true}
	for _, h := range header {
		t.Columns = append(t.Columns, &Column{Name: h, Type: String})
	}
	if len(t.Columns) > 0 {
		// pandas' C parser drops a UTF-8 byte order mark.
		t.Columns[0].Name = strings.TrimPrefix(header[0], "\ufeff")
	}
	max := opt.maxValues()
	var cells int64
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) > len(header) {
			return nil, fmt.Errorf("table %s:%d: %d fields, the header has %d", name, line, len(rec), len(header))
		}
		if err := checkText(name, line, rec); err != nil {
			return nil, err
		}
		if cells += int64(len(header)); cells > max {
			return nil, fmt.Errorf("table %s: more than %d values: %w", name, max, ErrTooLarge)
		}
		if t.Rows%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for j, c := range t.Columns {
			v := ""
			if j < len(rec) {
				v = rec[j]
			}
			c.Strs = append(c.Strs, v)
		}
		t.Rows++
	}
	return t, nil
}

func checkText(name string, line int, rec []string) error {
	for _, s := range rec {
		if !utf8.ValidString(s) {
			return fmt.Errorf("table %s:%d: text is not UTF-8: %q", name, line, s)
		}
	}
	return nil
}

// readJSONLines reads a table of JSON objects, one a line (blank lines
// skipped). Columns are the keys in order of first appearance; a key a row
// lacks is null there. A column of JSON integers is Int, of numbers Float,
// of true/false Bool, of strings String (nulls allowed in each); a column
// mixing those kinds, or holding arrays or objects, is String holding the
// JSON text of each value.
func readJSONLines(ctx context.Context, r io.Reader, name string, opt Options) (*Table, error) {
	br := bufio.NewReader(r)
	t := &Table{Name: name}
	type raw struct {
		vals []json.RawMessage // nil: missing
	}
	byName := map[string]int{}
	var cols []raw
	max := opt.maxValues()
	var cells int64
	for line := 1; ; line++ {
		text, err := br.ReadBytes('\n')
		if len(text) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("table %s:%d: %w", name, line, err)
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		if line%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		keys, vals, perr := parseObject(text)
		if perr != nil {
			return nil, fmt.Errorf("table %s:%d: %w", name, line, perr)
		}
		for k, key := range keys {
			j, ok := byName[key]
			if !ok {
				j = len(cols)
				byName[key] = j
				cols = append(cols, raw{vals: make([]json.RawMessage, t.Rows)})
				t.Columns = append(t.Columns, &Column{Name: key})
			}
			if len(cols[j].vals) > t.Rows {
				return nil, fmt.Errorf("table %s:%d: key %q twice", name, line, key)
			}
			cols[j].vals = append(cols[j].vals, vals[k])
		}
		t.Rows++
		if cells += int64(len(cols)); cells > max {
			return nil, fmt.Errorf("table %s: more than %d values: %w", name, max, ErrTooLarge)
		}
		for j := range cols {
			if len(cols[j].vals) < t.Rows {
				cols[j].vals = append(cols[j].vals, nil)
			}
		}
		if err == io.EOF {
			break
		}
	}
	for j, c := range t.Columns {
		typeJSON(c, cols[j].vals)
	}
	return t, nil
}

// parseObject splits one JSON object into its keys and raw values, in
// order.
func parseObject(text []byte) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, fmt.Errorf("not JSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, errors.New("not a JSON object")
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("not JSON: %w", err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, fmt.Errorf("not JSON: %w", err)
		}
		keys = append(keys, key)
		vals = append(vals, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, fmt.Errorf("not JSON: %w", err)
	}
	if dec.More() {
		return nil, nil, errors.New("text after the JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("text after the JSON object")
	}
	return keys, vals, nil
}

// typeJSON types column c from its raw values.
func typeJSON(c *Column, vals []json.RawMessage) {
	n := len(vals)
	c.Null = make([]bool, n)
	kind := byte(0) // 'i' int, 'f' float, 'b' bool, 's' string, 'x' mixed
	for i, v := range vals {
		var k byte
		switch {
		case v == nil || string(v) == "null":
			c.Null[i] = true
			continue
		case v[0] == '"':
			k = 's'
		case v[0] == 't' || v[0] == 'f':
			k = 'b'
		case v[0] == '[' || v[0] == '{':
			k = 'x'
		case bytes.ContainsAny(v, ".eE"):
			k = 'f'
		default:
			k = 'i'
			if _, err := strconv.ParseInt(string(v), 10, 64); err != nil {
				k = 'f'
			}
		}
		switch {
		case kind == 0:
			kind = k
		case kind == k:
		case (kind == 'i' && k == 'f') || (kind == 'f' && k == 'i'):
			kind = 'f'
		default:
			kind = 'x'
		}
	}
	switch kind {
	case 'i':
		c.Type, c.Bits, c.Ints = Int, 64, make([]int64, n)
		for i, v := range vals {
			if !c.Null[i] {
				c.Ints[i], _ = strconv.ParseInt(string(v), 10, 64)
			}
		}
	case 'f':
		c.Type, c.Bits, c.Floats = Float, 64, make([]float64, n)
		for i, v := range vals {
			if !c.Null[i] {
				c.Floats[i], _ = strconv.ParseFloat(string(v), 64)
			}
		}
	case 'b':
		c.Type, c.Ints = Bool, make([]int64, n)
		for i, v := range vals {
			if !c.Null[i] && v[0] == 't' {
				c.Ints[i] = 1
			}
		}
	default:
		c.Type, c.Strs = String, make([]string, n)
		for i, v := range vals {
			if c.Null[i] {
				continue
			}
			if kind == 's' {
				_ = json.Unmarshal(v, &c.Strs[i])
			} else {
				c.Strs[i] = string(v)
			}
		}
	}
}

// cell is the text of row i in CSV and markdown: str() of the value, ""
// for a null.
func (t *Table) cell(c *Column, i int) (string, error) {
	if t.Text || c.Type == String {
		if c.isNull(i) {
			return "", nil
		}
		return c.Strs[i], nil
	}
	if c.isNull(i) {
		return "", nil
	}
	if c.Type == Int && t.hadNull(c) {
		// pandas holds the column as float64.
		return pandastext.Float(c.float(i)).String(), nil
	}
	v, err := c.pyValue(i, false)
	if err != nil {
		return "", fmt.Errorf("column %q: %w", c.Name, err)
	}
	return v.String(), nil
}

func (t *Table) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	rec := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		rec[j] = c.Name
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	for i := 0; i < t.Rows; i++ {
		for j, c := range t.Columns {
			s, err := t.cell(c, i)
			if err != nil {
				return err
			}
			rec[j] = s
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func (t *Table) writeMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	row := func(cells []string) {
		bw.WriteString("|")
		for _, s := range cells {
			bw.WriteString(" ")
			bw.WriteString(mdcell.Escape(s))
			bw.WriteString(" |")
		}
		bw.WriteString("\n")
	}
	rec := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		rec[j] = c.Name
	}
	row(rec)
	for j := range rec {
		rec[j] = "---"
	}
	row(rec)
	for i := 0; i < t.Rows; i++ {
		for j, c := range t.Columns {
			s, err := t.cell(c, i)
			if err != nil {
				return err
			}
			rec[j] = s
		}
		row(rec)
	}
	return bw.Flush()
}
