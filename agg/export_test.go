package agg

import (
	"context"

	"github.com/evalmd/evalmd/result"
)

// Run reads the output files below opt.Dir and writes the report.
func Run(ctx context.Context, opt Options) error {
	d, err := Read(ctx, opt, nil)
	if err != nil {
		return err
	}
	if err := d.Write(opt); err != nil {
		return err
	}
	return d.Unread()
}

// add reduces every question of one decoded file to rows.
func (d *Data) add(f *result.File) {
	d.Data.Add(f)
}
