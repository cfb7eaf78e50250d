package goja

import (
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja/unistring"
)

type regexp2MatchCache struct {
	target String
	runes  []rune
	posMap []int
	base   int // FlowScript patch 149: posMap's indexes are base more than target's
}

// Not goroutine-safe. Use regexp2Wrapper.clone()
type regexp2Wrapper struct {
	rx    *regexp2.Regexp
	cache *regexp2MatchCache
	texts *goTextCache // the runtime's, for the runes of a text (FlowScript patch 76)
	// the last texts this pattern searched, held so that a collection does
	// not take them from a loop searching substrings of one (patch 149)
	lastRunes  *runeText
	lastPoints *pointText
}

type regexpWrapper regexp.Regexp

type positionMapItem struct {
	src, dst int
}
type positionMap []positionMapItem

func (m positionMap) get(src int) int {
	if src <= 0 {
		return src
	}
	res := sort.Search(len(m), func(n int) bool { return m[n].src >= src })
	if res >= len(m) || m[res].src != src {
		panic("index not found")
	}
	return m[res].dst
}

type arrayRuneReader struct {
	runes []rune
	pos   int
}

func (rd *arrayRuneReader) ReadRune() (r rune, size int, err error) {
	if rd.pos < len(rd.runes) {
		r = rd.runes[rd.pos]
		size = 1
		rd.pos++
	} else {
		err = io.EOF
	}
	return
}

// Not goroutine-safe. Use regexpPattern.clone()
type regexpPattern struct {
	src string

	global, ignoreCase, multiline, dotAll, sticky, unicode bool

	regexpWrapper  *regexpWrapper
	regexp2Wrapper *regexp2Wrapper
	// lazy2 is the regexp2 of a pattern compiled for Go's regexp, made the
	// first time a match needs it and shared by the pattern's clones, so that
	// each run of a compiled program does not compile it again (FlowScript
	// patch).
	lazy2 *lazyRegexp2

	// fast and lastText: searches that upstream sent to regexp2 and Go's
	// regexp answers the same (FlowScript patch 11, regexp_flowscript.go).
	fast     *goSearch
	lastText *goText
	// texts is the runtime's cache of texts (FlowScript patch 76), shared
	// by all its patterns: a regex literal makes a new pattern at each
	// evaluation, so lastText alone missed when a helper searched a long
	// text with one.
	texts *goTextCache
}

// lazyRegexp2 is a regexp2 compiled once, on first need.
type lazyRegexp2 struct {
	once sync.Once
	rx   *regexp2Wrapper
	err  error
}

type regexpResult struct {
	indexes []int
	groups  []string
}

func (result *regexpResult) appendIndexesAndGroup(index1, index2 int, name string) {
	result.indexes = append(result.indexes, index1, index2)
	result.groups = append(result.groups, name)
}

func submatchesToRegexpResults(submatches [][]int, groups []string) []regexpResult {
	results := make([]regexpResult, 0, len(submatches))
	for _, val := range submatches {
		results = append(results, regexpResult{indexes: val, groups: groups})
	}
	return results
}

func compileRegexp2(src string, multiline, dotAll, ignoreCase, unicode bool) (*regexp2Wrapper, error) {
	var opts = regexp2.ECMAScript
	// FlowScript: ^ $ . \b \B as ECMAScript reads them, with no Multiline
	// option (regexp_anchors_flowscript.go).
	pattern := ecmaAssertions(src, multiline, dotAll, unicode, ignoreCase)
	if dotAll {
		opts |= regexp2.Singleline
	}
	if ignoreCase {
		opts |= regexp2.IgnoreCase
	}
	if unicode {
		opts |= regexp2.Unicode
	}
	regexp2Pattern, err1 := regexp2.Compile(pattern, opts)
	if err1 != nil {
		return nil, err1 // its caller names the pattern (FlowScript patch 99)
	}

	return &regexp2Wrapper{rx: regexp2Pattern}, nil
}

func (p *regexpPattern) createRegexp2() {
	if p.regexp2Wrapper != nil {
		return
	}
	if l := p.lazy2; l != nil {
		l.once.Do(func() {
			l.rx, l.err = compileRegexp2(p.src, p.multiline, p.dotAll, p.ignoreCase, p.unicode)
		})
		if l.err != nil {
			// At this point the regexp should have been successfully converted to re2, if it fails now, it's a bug.
			panic(l.err)
		}
		p.regexp2Wrapper = l.rx.clone()
		p.regexp2Wrapper.texts = p.texts
		return
	}
	rx, err := compileRegexp2(p.src, p.multiline, p.dotAll, p.ignoreCase, p.unicode)
	if err != nil {
		// At this point the regexp should have been successfully converted to re2, if it fails now, it's a bug.
		panic(err)
	}
	p.regexp2Wrapper = rx
	rx.texts = p.texts
}

func buildUTF8PosMap(s unicodeString) (positionMap, string) {
	pm := make(positionMap, 0, s.Length())
	rd := s.Reader()
	sPos, utf8Pos := 0, 0
	var sb strings.Builder
	for {
		r, size, err := rd.ReadRune()
		if err == io.EOF {
			break
		}
		if err != nil {
			// the string contains invalid UTF-16, bailing out
			return nil, ""
		}
		utf8Size, _ := sb.WriteRune(r)
		sPos += size
		utf8Pos += utf8Size
		pm = append(pm, positionMapItem{src: utf8Pos, dst: sPos})
	}
	return pm, sb.String()
}

func (p *regexpPattern) findSubmatchIndex(s String, start int) regexpResult {
	if p.regexpWrapper == nil {
		return p.regexp2Wrapper.findSubmatchIndex(s, start, p.unicode, p.global || p.sticky)
	}
	if t := p.goTextOf(s, start); t != nil {
		return p.goFindAt(t, start)
	}
	if start != 0 || p.foldsAcrossASCII(s) {
		// Unfortunately Go's regexp library does not allow starting from an arbitrary position.
		// If we just drop the first _start_ characters of the string the assertions (^, $, \b and \B) will not
		// work correctly.
		p.createRegexp2()
		return p.regexp2Wrapper.findSubmatchIndex(s, start, p.unicode, p.global || p.sticky)
	}
	return p.regexpWrapper.findSubmatchIndex(s, p.unicode)
}

func (p *regexpPattern) findAllSubmatchIndex(s String, start int, limit int, sticky bool) []regexpResult {
	var results []regexpResult
	p.eachMatchIndex(s, start, limit, sticky, func(m regexpResult) { results = append(results, m) })
	return results
}

// eachMatchIndex calls f with each match of a global search from UTF-16
// index start (limit of them at most, -1: all), as it finds them: a global
// replace keeps no match (FlowScript patches 96 and 103), and
// findAllSubmatchIndex collects them. f may run the script's code: each
// path searches state of its own (a text, a regexp2 match), not the
// pattern's caches, between its calls.
func (p *regexpPattern) eachMatchIndex(s String, start, limit int, sticky bool, f func(regexpResult)) {
	if p.eachSubmatchIndex(s, start, limit, sticky, f) {
		return
	}
	if p.regexpWrapper == nil {
		p.regexp2Wrapper.eachSubmatchIndex(s, start, limit, sticky, p.unicode, f)
		return
	}
	if p.fast.narrow {
		p.createRegexp2()
		p.regexp2Wrapper.eachSubmatchIndex(s, start, limit, sticky, p.unicode, f)
		return
	}
	if start == 0 && !p.foldsAcrossASCII(s) {
		_, u := devirtualizeString(s) // UTF-16: an ASCII text was searched above
		if limit == 1 {
			result := p.regexpWrapper.findSubmatchIndexUnicode(u, p.unicode)
			// FlowScript: a sticky search matches at its start or not at all.
			if result.indexes != nil && (!sticky || result.indexes[0] == 0) {
				f(result)
			}
			return
		}
		// Unfortunately Go's regexp library lacks FindAllReaderSubmatchIndex(), so we have to use a UTF-8 string as an
		// input.
		if p.unicode {
			// Try to convert s to UTF-8. If it does not contain any invalid UTF-16 we can do the matching in UTF-8.
			pm, str := buildUTF8PosMap(u)
			if pm != nil {
				// FlowScript patch 84: empty matches as ECMAScript keeps
				// them (Go's FindAll drops one right where a match ended:
				// 'João'.replace(/ã?/giu, '-') lost the one after the ã).
				p.fast.init(p)
				names := (*regexp.Regexp)(p.regexpWrapper).SubexpNames()
				eachMatch(str, 0, limit, sticky, p.goFindRegexp, func(m []int) {
					for i, idx := range m {
						m[i] = pm.get(idx)
					}
					f(regexpResult{indexes: m, groups: names})
				})
				return
			}
		}
	}

	p.createRegexp2()
	p.regexp2Wrapper.eachSubmatchIndex(s, start, limit, sticky, p.unicode, f)
}

// clone creates a copy of the regexpPattern which can be used concurrently.
func (p *regexpPattern) clone() *regexpPattern {
	ret := &regexpPattern{
		src:        p.src,
		global:     p.global,
		ignoreCase: p.ignoreCase,
		multiline:  p.multiline,
		dotAll:     p.dotAll,
		sticky:     p.sticky,
		unicode:    p.unicode,
	}
	if p.regexpWrapper != nil {
		ret.regexpWrapper = p.regexpWrapper.clone()
	}
	if p.regexp2Wrapper != nil {
		ret.regexp2Wrapper = p.regexp2Wrapper.clone()
	}
	ret.lazy2 = p.lazy2
	ret.fast = p.fast
	return ret
}

type regexpObject struct {
	baseObject
	pattern *regexpPattern
	source  String

	standard bool
}

func (r *regexp2Wrapper) findSubmatchIndex(s String, start int, fullUnicode, doCache bool) regexpResult {
	if fullUnicode {
		return r.findSubmatchIndexUnicode(s, start, doCache)
	}
	return r.findSubmatchIndexUTF16(s, start, doCache)
}

func (r *regexp2Wrapper) findUTF16Cached(s String, start int, doCache bool) (match *regexp2.Match, runes []rune, err error) {
	wrapped := r.rx
	cache := r.cache
	if cache != nil && cache.posMap == nil && cache.target.SameAs(s) {
		runes = cache.runes
	} else {
		runes = r.texts.runesOf(s, &r.lastRunes)
		cache = nil
	}
	match, err = wrapped.FindRunesMatchStartingAt(runes, start)
	if doCache && match != nil && err == nil {
		if cache == nil {
			if r.cache == nil {
				r.cache = new(regexp2MatchCache)
			}
			*r.cache = regexp2MatchCache{
				target: s,
				runes:  runes,
			}
		}
	} else {
		r.cache = nil
	}
	return
}

func (r *regexp2Wrapper) findSubmatchIndexUTF16(s String, start int, doCache bool) regexpResult {
	match, _, err := r.findUTF16Cached(s, start, doCache)
	if err != nil {
		return regexpResult{}
	}

	if match == nil {
		return regexpResult{}
	}
	groups := match.Groups()

	result := regexpResult{
		indexes: make([]int, 0, len(groups)<<1),
		groups:  make([]string, 0, len(groups)),
	}
	for _, group := range groups {
		if len(group.Captures) > 0 {
			result.appendIndexesAndGroup(group.RuneIndex, group.RuneIndex+group.RuneLength, group.Name)
		} else {
			result.appendIndexesAndGroup(-1, 0, group.Name)
		}
	}
	return result
}

func (r *regexp2Wrapper) findUnicodeCached(s String, start int, doCache bool) (match *regexp2.Match, posMap []int, base int, err error) {
	var (
		runes       []rune
		mappedStart int
		splitPair   bool
	)
	wrapped := r.rx
	cache := r.cache
	if cache != nil && cache.posMap != nil && cache.target.SameAs(s) {
		runes, posMap, base = cache.runes, cache.posMap, cache.base
		mappedStart, splitPair = posMapReverseLookup(posMap, start+base)
	} else {
		// FlowScript patch 149: the runtime's last code points, or a view
		// of the string's whose characters s shares.
		posMap, base, runes, mappedStart, splitPair = r.texts.pointsOf(s, start, &r.lastPoints)
		cache = nil
	}
	if splitPair {
		// search from the second code point of the pair, in a copy: the
		// runes may be cached
		runes = slices.Clone(runes)
		_, runes[mappedStart] = utf16.EncodeRune(runes[mappedStart])
	}
	match, err = wrapped.FindRunesMatchStartingAt(runes, mappedStart)
	if doCache && match != nil && err == nil && !splitPair {
		if cache == nil {
			if r.cache == nil {
				r.cache = new(regexp2MatchCache)
			}
			*r.cache = regexp2MatchCache{
				target: s,
				runes:  runes,
				posMap: posMap,
				base:   base,
			}
		}
	} else {
		r.cache = nil
	}

	return
}

func (r *regexp2Wrapper) findSubmatchIndexUnicode(s String, start int, doCache bool) regexpResult {
	match, posMap, base, err := r.findUnicodeCached(s, start, doCache)
	if match == nil || err != nil {
		return regexpResult{}
	}

	groups := match.Groups()

	result := regexpResult{
		indexes: make([]int, 0, len(groups)<<1),
		groups:  make([]string, 0, len(groups)),
	}
	for _, group := range groups {
		if len(group.Captures) > 0 {
			result.appendIndexesAndGroup(posMap[group.RuneIndex]-base, posMap[group.RuneIndex+group.RuneLength]-base, group.Name)
		} else {
			result.appendIndexesAndGroup(-1, 0, group.Name)
		}
	}
	return result
}

func (r *regexp2Wrapper) eachSubmatchIndexUTF16(s String, start, limit int, sticky bool, f func(regexpResult)) {
	wrapped := r.rx
	match, runes, err := r.findUTF16Cached(s, start, false)
	if match == nil || err != nil {
		return
	}
	if limit < 0 {
		limit = len(runes) + 1
	}
	for match != nil {
		groups := match.Groups()

		result := regexpResult{
			indexes: make([]int, 0, len(groups)<<1),
			groups:  make([]string, 0, len(groups)),
		}

		for _, group := range groups {
			if len(group.Captures) > 0 {
				startPos := group.RuneIndex
				endPos := group.RuneIndex + group.RuneLength
				result.appendIndexesAndGroup(startPos, endPos, group.Name)
			} else {
				result.appendIndexesAndGroup(-1, 0, group.Name)
			}
		}

		if sticky && len(result.indexes) > 1 {
			if result.indexes[0] != start {
				break
			}
			start = result.indexes[1]
			if result.indexes[0] == start {
				start++ // FlowScript: after an empty match the next one is tried a character on
			}
		}

		f(result) // FlowScript patch 103: as found
		limit--
		if limit <= 0 {
			break
		}
		// The sandbox gives regexp2 no limit, so no error ends a search
		// part way (an error here was "no match" before, upstream).
		match, err = wrapped.FindNextMatch(match)
		if err != nil {
			return
		}
	}
}

func buildPosMap(rd io.RuneReader, l, start int) (posMap []int, runes []rune, mappedStart int, splitPair bool) {
	posMap = make([]int, 0, l+1)
	curPos := 0
	runes = make([]rune, 0, l)
	startFound := false
	for {
		if !startFound {
			if curPos == start {
				mappedStart = len(runes)
				startFound = true
			}
			if curPos > start {
				// start position splits a surrogate pair
				mappedStart = len(runes) - 1
				splitPair = true
				startFound = true
			}
		}
		rn, size, err := rd.ReadRune()
		if err != nil {
			break
		}
		runes = append(runes, rn)
		posMap = append(posMap, curPos)
		curPos += size
	}
	posMap = append(posMap, curPos)
	return
}

func posMapReverseLookup(posMap []int, pos int) (int, bool) {
	mapped := sort.SearchInts(posMap, pos)
	if mapped < len(posMap) && posMap[mapped] != pos {
		return mapped - 1, true
	}
	return mapped, false
}

func (r *regexp2Wrapper) eachSubmatchIndexUnicode(s unicodeString, start, limit int, sticky bool, f func(regexpResult)) {
	wrapped := r.rx
	if limit < 0 {
		limit = len(s) + 1
	}
	match, posMap, base, err := r.findUnicodeCached(s, start, false)
	if err != nil {
		return
	}
	for match != nil {
		groups := match.Groups()

		result := regexpResult{
			indexes: make([]int, 0, len(groups)<<1),
			groups:  make([]string, 0, len(groups)),
		}

		for _, group := range groups {
			if len(group.Captures) > 0 {
				start := posMap[group.RuneIndex] - base
				end := posMap[group.RuneIndex+group.RuneLength] - base
				result.appendIndexesAndGroup(start, end, group.Name)
			} else {
				result.appendIndexesAndGroup(-1, 0, group.Name)
			}
		}

		if sticky && len(result.indexes) > 1 {
			if result.indexes[0] != start {
				break
			}
			start = result.indexes[1]
			if result.indexes[0] == start {
				// FlowScript: after an empty match the next one is tried a
				// code point on.
				start++
				if start < s.Length() && isUTF16Pair(s, start-1) {
					start++
				}
			}
		}

		f(result) // FlowScript patch 103: as found
		// FlowScript patch 61: the limit holds here too (a replace without
		// g replaced every match of a u pattern in non-ASCII text).
		limit--
		if limit <= 0 {
			break
		}
		// The sandbox gives regexp2 no limit, so no error ends a search
		// part way (an error here was "no match" before, upstream).
		match, err = wrapped.FindNextMatch(match)
		if err != nil {
			return
		}
	}
}

// eachSubmatchIndex calls f with each match of a global search, as it
// finds them (FlowScript patch 103; upstream collected them): the next
// search runs on the match's own text, so f may search with this regexp.
func (r *regexp2Wrapper) eachSubmatchIndex(s String, start, limit int, sticky, fullUnicode bool, f func(regexpResult)) {
	a, u := devirtualizeString(s)
	if u != nil {
		if fullUnicode {
			r.eachSubmatchIndexUnicode(u, start, limit, sticky, f)
			return
		}
		r.eachSubmatchIndexUTF16(u, start, limit, sticky, f)
		return
	}
	r.eachSubmatchIndexUTF16(a, start, limit, sticky, f)
}

func (r *regexp2Wrapper) clone() *regexp2Wrapper {
	return &regexp2Wrapper{
		rx: r.rx,
	}
}

func (r *regexpWrapper) findAllSubmatchIndex(s string, limit int, sticky bool) []regexpResult {
	wrapped := (*regexp.Regexp)(r)
	results := submatchesToRegexpResults(wrapped.FindAllStringSubmatchIndex(s, limit), wrapped.SubexpNames())
	pos := 0
	if sticky {
		for i, result := range results {
			if len(result.indexes) > 1 {
				if result.indexes[0] != pos {
					return results[:i]
				}
				pos = result.indexes[1]
				if result.indexes[0] == pos && pos < len(s) {
					// FlowScript: after an empty match Go's regexp tries the
					// next one a character on, as ECMAScript does.
					_, size := utf8.DecodeRuneInString(s[pos:])
					pos += size
				}
			}
		}
	}
	return results
}

func (r *regexpWrapper) findSubmatchIndex(s String, fullUnicode bool) regexpResult {
	a, u := devirtualizeString(s)
	if u != nil {
		return r.findSubmatchIndexUnicode(u, fullUnicode)
	}
	return r.findSubmatchIndexASCII(string(a))
}

func (r *regexpWrapper) findSubmatchIndexASCII(s string) regexpResult {
	wrapped := (*regexp.Regexp)(r)
	return regexpResult{indexes: wrapped.FindStringSubmatchIndex(s), groups: wrapped.SubexpNames()}
}

func (r *regexpWrapper) findSubmatchIndexUnicode(s unicodeString, fullUnicode bool) regexpResult {
	wrapped := (*regexp.Regexp)(r)
	if fullUnicode {
		posMap, runes, _, _ := buildPosMap(&lenientUtf16Decoder{utf16Reader: s.utf16Reader()}, s.Length(), 0)
		// FlowScript patch 83: with the group names, which upstream left
		// out here (named groups of a u pattern over non-ASCII text that Go's
		// regexp cannot search as UTF-8, as with i, were undefined).
		result := regexpResult{indexes: wrapped.FindReaderSubmatchIndex(&arrayRuneReader{runes: runes}), groups: wrapped.SubexpNames()}
		for i, item := range result.indexes {
			if item >= 0 {
				result.indexes[i] = posMap[item]
			}
		}
		return result
	}
	return regexpResult{indexes: wrapped.FindReaderSubmatchIndex(s.utf16RuneReader()), groups: wrapped.SubexpNames()}
}

func (r *regexpWrapper) clone() *regexpWrapper {
	return r
}

func (r *Runtime) createRegexpGroupsObj(valueArray []Value, groupNames []string) *Object {
	var groups *baseObject
	for index := 1; index < len(valueArray); index++ {
		if index < len(groupNames) {
			name := groupNames[index]
			if name == "" {
				continue
			} else if groups == nil {
				groups = r.newBaseObject(nil, classObject)
			}
			groups.setOwnStr(unistring.NewFromString(name), valueArray[index], false)
		}
	}
	if groups != nil {
		return groups.val
	}
	return nil
}

func createRegexpGroupsMap(result regexpResult) (groups map[unistring.String]int) {
	if len(result.groups) > 0 {
		groups = make(map[unistring.String]int)
		for i := 1; i < len(result.groups); i++ {
			if group := result.groups[i]; group != "" {
				idx := i * 2
				if idx < len(result.indexes)-1 {
					groups[unistring.NewFromString(group)] = idx
				}
			}
		}
	}
	return
}

func (r *regexpObject) execResultToArray(target String, result regexpResult) Value {
	captureCount := len(result.indexes) >> 1
	valueArray := make([]Value, captureCount)
	matchIndex := result.indexes[0]
	valueArray[0] = target.Substring(result.indexes[0], result.indexes[1])
	lowerBound := 0
	for index := 1; index < captureCount; index++ {
		offset := index << 1
		if result.indexes[offset] >= 0 && result.indexes[offset+1] >= lowerBound {
			valueArray[index] = target.Substring(result.indexes[offset], result.indexes[offset+1])
			lowerBound = result.indexes[offset]
		} else {
			valueArray[index] = _undefined
		}
	}
	// index, input and groups are own data properties, made in that order
	// (RegExpBuiltinExec: CreateDataPropertyOrThrow). Upstream set input
	// before index, through any setter the prototypes had (FlowScript patch
	// 18).
	match := setArrayValues(r.val.runtime.newArrayObject(), valueArray)
	match._put("index", intToValue(int64(matchIndex)))
	match._put("input", target)

	groups := r.val.runtime.createRegexpGroupsObj(valueArray, result.groups)

	var groupsVal Value
	if groups != nil {
		groupsVal = groups
	} else {
		groupsVal = _undefined
	}
	match._put("groups", groupsVal)

	return match.val
}

func (r *regexpObject) getLastIndex() int64 {
	lastIndex := toLength(r.getStr("lastIndex", nil))
	if !r.pattern.global && !r.pattern.sticky {
		return 0
	}
	return lastIndex
}

func (r *regexpObject) execRegexp(target String) (match bool, result regexpResult) {
	index := r.getLastIndex()
	if index >= 0 && index <= int64(target.Length()) {
		result = r.pattern.findSubmatchIndex(target, int(index))
	}
	match = len(result.indexes) > 0 && (!r.pattern.sticky || int64(result.indexes[0]) == index)

	if r.pattern.global || r.pattern.sticky {
		var newLastIndex int64
		if match {
			newLastIndex = int64(result.indexes[1])
		}
		r.setOwnStr("lastIndex", intToValue(newLastIndex), true)
	}

	return
}

func (r *regexpObject) exec(target String) Value {
	match, result := r.execRegexp(target)
	if match {
		return r.execResultToArray(target, result)
	}
	return _null
}

func (r *regexpObject) test(target String) bool {
	match, _ := r.execRegexp(target)
	return match
}

func (r *regexpObject) clone() *regexpObject {
	r1 := r.val.runtime.newRegexpObject(r.prototype)
	r1.source = r.source
	r1.pattern = r.pattern

	return r1
}

func (r *regexpObject) init() {
	r.baseObject.init()
	r.standard = true
	r._putProp("lastIndex", intToValue(0), true, false, false)
}

func (r *regexpObject) setProto(proto *Object, throw bool) bool {
	res := r.baseObject.setProto(proto, throw)
	if res {
		r.standard = false
	}
	return res
}

func (r *regexpObject) defineOwnPropertyStr(name unistring.String, desc PropertyDescriptor, throw bool) bool {
	res := r.baseObject.defineOwnPropertyStr(name, desc, throw)
	if res {
		r.standard = false
	}
	return res
}

func (r *regexpObject) defineOwnPropertySym(name *Symbol, desc PropertyDescriptor, throw bool) bool {
	res := r.baseObject.defineOwnPropertySym(name, desc, throw)
	if res && r.standard {
		switch name {
		case SymMatch, SymMatchAll, SymSearch, SymSplit, SymReplace:
			r.standard = false
		}
	}
	return res
}

func (r *regexpObject) deleteStr(name unistring.String, throw bool) bool {
	res := r.baseObject.deleteStr(name, throw)
	if res {
		r.standard = false
	}
	return res
}

func (r *regexpObject) setOwnStr(name unistring.String, value Value, throw bool) bool {
	res := r.baseObject.setOwnStr(name, value, throw)
	if res && r.standard && name == "exec" {
		r.standard = false
	}
	return res
}

func (r *regexpObject) setOwnSym(name *Symbol, value Value, throw bool) bool {
	res := r.baseObject.setOwnSym(name, value, throw)
	if res && r.standard {
		switch name {
		case SymMatch, SymMatchAll, SymSearch, SymSplit, SymReplace:
			r.standard = false
		}
	}
	return res
}

// isUTF16Pair reports whether s holds a surrogate pair at i (FlowScript).
func isUTF16Pair(s String, i int) bool {
	return i+1 < s.Length() && isUTF16FirstSurrogate(s.CharAt(i)) && isUTF16SecondSurrogate(s.CharAt(i+1))
}
