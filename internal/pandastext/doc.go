// Package pandastext prints a data frame as pandas 1.5.3's
// DataFrame.to_string(index=False) and to_csv(index=False) print it.
//
// A Frame is built as pandas builds the DataFrame: FromRows from a sheet's
// cells as read_excel's parser types them (package workbook), TextFrame
// from text cells as read_csv does, or column by column with the dtypes
// pandas would hold (package table). A cell, or an element of an object
// column, is a Value: the Python object pandas holds there.
//
// The quirks of that stack are part of the output on purpose, because a
// model's score is only comparable with the paper when it saw the same
// text: a bool column with blanks prints as 1.0/0.0; blank rows are kept
// (read_excel turns its parser's skip_blank_lines off); object columns
// print a value as the first equal one seen (0 after False prints False).
package pandastext
