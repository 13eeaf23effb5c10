package runcmd

import (
	"maps"
	"strings"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/harness"
)

// buildVision sets which models are sent images: --vision on or off for
// every model; else, by model, --vision MODEL=on,MODEL=off over the
// config's vision member; else what each model's name says.
func (f *flags) buildVision(cfg *harness.Config, conf *config.Config) error {
	switch f.vision {
	case "", "auto":
	case "on", "off":
		v := f.vision == "on"
		cfg.Vision = &v
		return nil
	default:
		if !strings.Contains(f.vision, "=") {
			return cli.Usagef("--vision %q: say on, off or auto, or MODEL=on,MODEL=off", f.vision)
		}
	}
	of := maps.Clone(conf.Vision)
	if strings.Contains(f.vision, "=") {
		if of == nil {
			of = map[string]bool{}
		}
		for _, pair := range strings.Split(f.vision, ",") {
			name, v, _ := strings.Cut(strings.TrimSpace(pair), "=")
			if name == "" || v != "on" && v != "off" {
				return cli.Usagef("--vision %q: %q: say MODEL=on or MODEL=off", f.vision, pair)
			}
			of[name] = v == "on"
		}
	}
	cfg.VisionOf = of
	return nil
}
