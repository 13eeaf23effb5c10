package model

// SettingsSender is a Model with rules of its own for the settings it
// sends, beyond what its Info says (Sendable): Anthropic's thinking takes
// no temperature and needs max_tokens above its budget, the Responses API
// has no seed and a least max_output_tokens. The run asks it, for each
// question, before any call, so that what was sent is what the output
// records, a setting not sent as asked is said once naming where it was
// set, and settings that cannot be sent at all fail the run at once
// instead of every question.
type SettingsSender interface {
	// SendSettings returns the settings a request asking s sends (as
	// the provider reads them back: sending them again sends the same),
	// a note for each setting not sent as asked, and a *SettingNote
	// error when s cannot be sent at all.
	SendSettings(s Settings) (Settings, []SettingNote, error)
}

// SettingNote says why one setting is not sent as it was asked, or, as
// an error, why it cannot be sent.
type SettingNote struct {
	Name string // the setting, as its meta key: "temperature"
	// As is the value sent instead ("16" for a max_tokens of 10); "" when
	// the setting is not sent.
	As  string
	Why string // why; as an error, the whole sentence
}

func (n *SettingNote) Error() string { return n.Why }

// SendSettings returns what a request asking s sends to m, which info
// describes: m's own rules when it is a SettingsSender, else those of
// info.Sendable (a setting the model does not take is not sent). m may
// be nil (a dry run makes no model): info answers.
func SendSettings(m Model, info Info, s Settings) (Settings, []SettingNote, error) {
	if ss, ok := m.(SettingsSender); ok {
		return ss.SendSettings(s)
	}
	sent, dropped := info.Sendable(s)
	var notes []SettingNote
	for _, name := range dropped {
		why := "a reasoning model takes only the default (OpenAI answers HTTP 400)"
		switch name {
		case "reasoning_tokens":
			why = "its server takes no thinking budget (docs/models.md: Reasoning)"
		case "reasoning_effort":
			why = "its server takes an effort or a budget, not both, and is sent the budget"
		case "thinking":
			why = "only Anthropic takes a thinking type; reasoning_effort is this server's setting"
		}
		notes = append(notes, SettingNote{Name: name, Why: why})
	}
	return sent, notes, nil
}
