package setting

import (
	"fmt"
	"strings"

	"github.com/evalmd/evalmd/internal/mdcell"
)

// Table is docs/settings.md's table of settings and meta keys, made from All and
// Keys (a test keeps that copy equal to it).
func Table() string {
	var b strings.Builder
	b.WriteString("| setting | value | default | ceiling | from | what |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, s := range All {
		from := s.where(func(f string) string { return "`" + f + "`" })
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", s.Name, mdcell.Escape(s.Type), mdcell.Escape(s.Default), mdcell.Escape(s.Ceiling), from, mdcell.Escape(s.Doc))
	}
	b.WriteString("\nOther meta keys read (data about a question, not resolved as settings):\n\n| key | what |\n| --- | --- |\n")
	for _, k := range Keys {
		fmt.Fprintf(&b, "| `%s` | %s |\n", k.Name, mdcell.Escape(k.Doc))
	}
	return b.String()
}
