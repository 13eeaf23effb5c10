package xlsb

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// ExampleOpenReader lists a workbook's sheets and prints one sheet's grid.
// The workbook is the tests' hand-built fixture.
func ExampleOpenReader() {
	z, err := zipBytes(fixtureParts())
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := OpenReader(bytes.NewReader(z), int64(len(z)))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Close()
	for _, s := range w.Sheets() {
		fmt.Printf("%s chart=%v\n", s.Name, s.Chart)
	}
	rows, _ := w.Rows("Data")
	for _, row := range rows {
		var out []string
		for _, c := range row {
			switch c.Kind {
			case Empty:
				out = append(out, "_")
			case Number:
				out = append(out, fmt.Sprint(c.Num))
			case String:
				out = append(out, strconv.Quote(c.Str))
			case Bool:
				out = append(out, fmt.Sprint(c.Bool))
			case Error:
				out = append(out, fmt.Sprintf("%#x", c.Err))
			}
		}
		fmt.Println(strings.Join(out, " "))
	}
	// Output:
	// Data chart=false
	// Hidden chart=false
	// Chart1 chart=true
	// 5 123.45 1.5 0.015 -2.25e+10 _
	// 0x7 true false "inline ☃" "β-😀" _
	// _ _ _ _ _ _
	// "f-str" 3.25 true 0x2a _ _
}
