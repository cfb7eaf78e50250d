package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	setting := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, c := range []struct {
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"v1.4.0", setting("vcs.revision", "72f7024a1b2c3d4e"), "v1.4.0"},
		{"(devel)", setting("vcs.revision", "72f7024a1b2c3d4e5f", "vcs.modified", "false"), "devel 72f7024a1b2c"},
		{"(devel)", setting("vcs.revision", "72f7024a1b2c3d4e5f", "vcs.modified", "true"), "devel 72f7024a1b2c+dirty"},
		{"", setting("vcs.revision", "abc"), "devel abc"},
		{"(devel)", nil, "devel"},
	} {
		info := &debug.BuildInfo{Main: debug.Module{Version: c.main}, Settings: c.settings}
		if got := versionOf(info); got != c.want {
			t.Errorf("versionOf(%q, %v) = %q, want %q", c.main, c.settings, got, c.want)
		}
	}
	if Version() == "" {
		t.Error("Version is empty")
	}
}
