package sandbox

// Column turns a position goja gives (a 1-based line of source and a
// 1-based column counted in bytes) into the column JavaScript engines and
// editors report: UTF-16 code units from the line's start, plus one. An
// accented letter then counts one column and most emoji two, so the column
// of an error on a line of Portuguese text is where an editor shows it.
// Lines end at \n, \r\n, \r, U+2028 and U+2029, as goja counts them. A
// column past the line's end counts on past it; a position not in source
// is returned as it is.
func Column(source string, line, byteCol int) int {
	if line < 1 || byteCol < 1 {
		return byteCol
	}
	start := 0
	for l := 1; l < line; l++ {
		for {
			if start >= len(source) {
				return byteCol
			}
			if n := lineTerminatorAt(source, start); n > 0 {
				start += n
				break
			}
			start++
		}
	}
	at := start + byteCol - 1
	end := min(at, len(source))
	units := 0
	for _, r := range source[start:end] { // a bad byte is one RuneError: one unit
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
	}
	return units + 1 + (at - end)
}
