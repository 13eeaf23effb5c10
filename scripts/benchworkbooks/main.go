// Command benchworkbooks renders workbooks with package workbook, writing
// each one's DSBench text to stdout in argument order. It is the Go side of
// scripts/bench-workbooks.sh, so one process covers the whole corpus.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"

	"github.com/evalmd/evalmd/workbook"
)

func main() {
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	status := 0
	for _, path := range os.Args[1:] {
		if err := workbook.RenderTo(context.Background(), w, path, workbook.Options{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			status = 1
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		status = 1
	}
	os.Exit(status)
}
