// Command convert turns benchmark data into sheets, sheets into an Inspect
// dataset, output files into benchmark submission files, and prints a
// workbook as a model sees it: evalmd convert, as a command of its own.
//
//	convert workbook FILE
//	convert dsbench -i DATA -o DIR
//	convert init DIR
//	...
//
// "convert -h" lists the conversions.
package main

import (
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/convertcmd"
)

func main() { cli.Main(convertcmd.Command()) }
