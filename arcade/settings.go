package arcade

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"pyramid/store"
)

// setting is one of the player's settings: its allowed values, the first
// being the default.
type setting struct {
	name   string
	values []string
}

// knownSettings are the settings the arcade keeps per player. A value
// not stored is the default.
func knownSettings() []setting {
	return []setting{
		{store.SettingKeys, []string{"arrows", "wasd"}},
		{store.SettingCards, []string{"symbols", "letters"}},
		{store.SettingWinnableOnly, []string{"off", "on"}},
		{store.SettingWatchable, []string{"on", "off"}}, // "Others may watch me" defaults to on
		{store.SettingTellUnwinnable, []string{"off", "on"}},
	}
}

// findSetting returns the setting of a name.
func findSetting(name string) (setting, bool) {
	all := knownSettings()
	i := slices.IndexFunc(all, func(s setting) bool { return s.name == name })
	if i < 0 {
		return setting{}, false
	}
	return all[i], true
}

// Settings returns every setting of the player by name (store.Setting*),
// the default where none is stored: keys "arrows" or "wasd", cards
// "symbols" or "letters", "off" or "on" for winnable-only and
// tell-unwinnable (tell me when a deal can no longer be won), and "on" or
// "off" for watchable (others may watch my games).
func (a *account) Settings(ctx context.Context, player string) (map[string]string, error) {
	stored, err := a.st.Settings(ctx, player)
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	all := knownSettings()
	out := make(map[string]string, len(all))
	for _, s := range all {
		out[s.name] = s.values[0]
		if v, ok := stored[s.name]; ok && slices.Contains(s.values, v) {
			out[s.name] = v
		}
	}
	return out, nil
}

// SetSetting keeps one setting of the player. The error says why a name
// or value is refused in words fit for the player.
func (a *account) SetSetting(ctx context.Context, player, name, value string) error {
	s, ok := findSetting(name)
	if !ok {
		return &refusal{words: "no such setting: " + strings.Join(settingNames(), ", ")}
	}
	if !slices.Contains(s.values, value) {
		return &refusal{words: name + " is one of " + strings.Join(s.values, ", ")}
	}
	if value == s.values[0] {
		value = "" // the default: nothing to keep
	}
	if err := a.st.SetSetting(ctx, player, name, value); err != nil {
		if a.log != nil {
			a.log.Error("set setting failed", "player", player, "setting", name, "err", err)
		}
		return &refusal{words: "the server could not keep the setting now, try again", cause: err}
	}
	return nil
}

// settingNames lists the settings' names.
func settingNames() []string {
	all := knownSettings()
	names := make([]string, len(all))
	for i, s := range all {
		names[i] = s.name
	}
	return names
}
