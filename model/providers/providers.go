// Package providers builds the model registry the commands use: every
// provider this module has (model/openai, model/anthropic, model/builtin).
// A program that wants fewer builds its own model.Registry.
package providers

import (
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/anthropic"
	"github.com/evalmd/evalmd/model/builtin"
	"github.com/evalmd/evalmd/model/openai"
)

// Registry returns a new registry holding every provider of this module.
func Registry() *model.Registry {
	r := model.NewRegistry()
	openai.Register(r)
	anthropic.Register(r)
	builtin.Register(r)
	return r
}

// New builds a model by name with every provider of this module.
func New(name string, opt model.Options) (model.Model, error) {
	return Registry().New(name, opt)
}
