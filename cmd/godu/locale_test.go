//go:build unix

package main

import "testing"

// TestUnknownLocales: setlocale(LC_ALL, "") fails as a whole when any
// category names a locale that is not installed, and du then runs in the
// C locale (names quoted byte by byte); a name is installed only if the
// C library's locale archive or directory lists it, whatever bytes the
// archive holds (two-letter names occur in its data).
func TestUnknownLocales(t *testing.T) {
	needDu(t)
	root := t.TempDir()
	for _, env := range [][]string{
		{"LANG=C.UTF-8", "LC_MONETARY=xx"}, {"LANG=xx_YY", "LC_CTYPE=C.UTF-8"}, {"LANG=C.UTF-8", "LC_TIME=xx_YY.UTF-8"},
		{"LANG=C.UTF-8", "LC_NUMERIC=zz"}, {"LC_ALL=C.UTF-8", "LANG=xx"}, {"LANG=C.UTF-8"}, {"LC_CTYPE=C.UTF-8", "LC_PAPER=ab_CD"},
	} {
		sameRun(t, root, append([]string{"LC_ALL="}, env...), []string{"é-missing", "\xff-bad"})
	}
}
