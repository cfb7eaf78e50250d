package goja

import (
	"fmt"
	"time"
)

// FlowScript patch 51: Date's toString and toTimeString name the zone as
// V8 does, by its long name from Unicode CLDR (GMT-0300 (Brasilia
// Standard Time)), for the zones of zoneNames; upstream wrote the zone's
// abbreviation from the tz database, which for most of Latin America is
// only the offset again (GMT-0300 (-03)). A zone not listed has its
// abbreviation, or GMT-03:00 where the abbreviation is only the offset,
// as in V8. Europe/Dublin is left out: the tz database gives it a
// negative daylight saving, so its winter reads as daylight time.

// zoneNames are the long names of a zone's standard and daylight time
// (the second empty where the zone has none), by IANA name.
var zoneNames = map[string][2]string{
	"UTC": {"Coordinated Universal Time", ""}, "Etc/UTC": {"Coordinated Universal Time", ""},
	"America/Sao_Paulo":              {"Brasilia Standard Time", "Brasilia Summer Time"},
	"America/Recife":                 {"Brasilia Standard Time", "Brasilia Summer Time"},
	"America/Fortaleza":              {"Brasilia Standard Time", "Brasilia Summer Time"},
	"America/Bahia":                  {"Brasilia Standard Time", "Brasilia Summer Time"},
	"America/Belem":                  {"Brasilia Standard Time", "Brasilia Summer Time"},
	"America/Maceio":                 {"Brasilia Standard Time", "Brasilia Summer Time"},
	"America/Araguaina":              {"Brasilia Standard Time", "Brasilia Summer Time"},
	"America/Santarem":               {"Brasilia Standard Time", "Brasilia Summer Time"},
	"America/Manaus":                 {"Amazon Standard Time", "Amazon Summer Time"},
	"America/Cuiaba":                 {"Amazon Standard Time", "Amazon Summer Time"},
	"America/Campo_Grande":           {"Amazon Standard Time", "Amazon Summer Time"},
	"America/Porto_Velho":            {"Amazon Standard Time", "Amazon Summer Time"},
	"America/Boa_Vista":              {"Amazon Standard Time", "Amazon Summer Time"},
	"America/Rio_Branco":             {"Acre Standard Time", "Acre Summer Time"},
	"America/Noronha":                {"Fernando de Noronha Standard Time", "Fernando de Noronha Summer Time"},
	"America/Argentina/Buenos_Aires": {"Argentina Standard Time", "Argentina Summer Time"},
	"America/Buenos_Aires":           {"Argentina Standard Time", "Argentina Summer Time"},
	"America/Mexico_City":            {"Central Standard Time", "Central Daylight Time"},
	"America/Bogota":                 {"Colombia Standard Time", "Colombia Summer Time"},
	"America/Lima":                   {"Peru Standard Time", "Peru Summer Time"},
	"America/Santiago":               {"Chile Standard Time", "Chile Summer Time"},
	"America/Caracas":                {"Venezuela Time", ""},
	"America/Montevideo":             {"Uruguay Standard Time", "Uruguay Summer Time"},
	"America/Asuncion":               {"Paraguay Standard Time", "Paraguay Summer Time"},
	"America/La_Paz":                 {"Bolivia Time", ""},
	"America/Guayaquil":              {"Ecuador Time", ""},
	"America/New_York":               {"Eastern Standard Time", "Eastern Daylight Time"},
	"America/Chicago":                {"Central Standard Time", "Central Daylight Time"},
	"America/Denver":                 {"Mountain Standard Time", "Mountain Daylight Time"},
	"America/Los_Angeles":            {"Pacific Standard Time", "Pacific Daylight Time"},
	"Europe/Lisbon":                  {"Western European Standard Time", "Western European Summer Time"},
	"Europe/London":                  {"Greenwich Mean Time", "British Summer Time"},
	"Europe/Madrid":                  {"Central European Standard Time", "Central European Summer Time"},
	"Europe/Berlin":                  {"Central European Standard Time", "Central European Summer Time"},
	"Europe/Paris":                   {"Central European Standard Time", "Central European Summer Time"},
	"Europe/Rome":                    {"Central European Standard Time", "Central European Summer Time"},
	"Asia/Tokyo":                     {"Japan Standard Time", "Japan Daylight Time"},
	"Asia/Kolkata":                   {"India Standard Time", ""},
	"Asia/Shanghai":                  {"China Standard Time", ""},
	"Asia/Singapore":                 {"Singapore Standard Time", ""},
	"Asia/Dubai":                     {"Gulf Standard Time", ""},
	"Australia/Sydney":               {"Australian Eastern Standard Time", "Australian Eastern Daylight Time"},
	"Africa/Luanda":                  {"West Africa Time", ""},
	"Africa/Maputo":                  {"Central Africa Time", ""},
	"Africa/Johannesburg":            {"South Africa Standard Time", ""},
	"Africa/Lagos":                   {"West Africa Time", ""},
	"Europe/Amsterdam":               {"Central European Standard Time", "Central European Summer Time"},
	"Europe/Brussels":                {"Central European Standard Time", "Central European Summer Time"},
	"Europe/Zurich":                  {"Central European Standard Time", "Central European Summer Time"},
	"Europe/Vienna":                  {"Central European Standard Time", "Central European Summer Time"},
	"Atlantic/Azores":                {"Azores Standard Time", "Azores Summer Time"},
	"Atlantic/Madeira":               {"Western European Standard Time", "Western European Summer Time"},
	"America/Panama":                 {"Eastern Standard Time", ""},
	"America/Costa_Rica":             {"Central Standard Time", ""},
	"America/Guatemala":              {"Central Standard Time", ""},
	"America/El_Salvador":            {"Central Standard Time", ""},
	"America/Tegucigalpa":            {"Central Standard Time", ""},
	"America/Managua":                {"Central Standard Time", ""},
	"America/Santo_Domingo":          {"Atlantic Standard Time", ""},
	"America/Puerto_Rico":            {"Atlantic Standard Time", ""},
	"America/Havana":                 {"Cuba Standard Time", "Cuba Daylight Time"},
	"America/Toronto":                {"Eastern Standard Time", "Eastern Daylight Time"},
	"America/Phoenix":                {"Mountain Standard Time", ""},
	"America/Anchorage":              {"Alaska Standard Time", "Alaska Daylight Time"},
	"Pacific/Honolulu":               {"Hawaii-Aleutian Standard Time", ""},
	"America/Cancun":                 {"Eastern Standard Time", ""},
	"America/Monterrey":              {"Central Standard Time", ""},
	"America/Tijuana":                {"Pacific Standard Time", "Pacific Daylight Time"},
	"America/Halifax":                {"Atlantic Standard Time", "Atlantic Daylight Time"},
	"Europe/Moscow":                  {"Moscow Standard Time", ""},
	"Europe/Warsaw":                  {"Central European Standard Time", "Central European Summer Time"},
	"Europe/Athens":                  {"Eastern European Standard Time", "Eastern European Summer Time"},
	"Europe/Kiev":                    {"Eastern European Standard Time", "Eastern European Summer Time"},
	"Europe/Kyiv":                    {"Eastern European Standard Time", "Eastern European Summer Time"},
	"Asia/Hong_Kong":                 {"Hong Kong Standard Time", ""},
	"Asia/Seoul":                     {"Korean Standard Time", ""},
	"Asia/Jakarta":                   {"Western Indonesia Time", ""},
	"Asia/Manila":                    {"Philippine Standard Time", ""},
	"America/Argentina/Cordoba":      {"Argentina Standard Time", ""},
	"Pacific/Easter":                 {"Easter Island Standard Time", "Easter Island Summer Time"},
}

// zoneName is how V8 names the zone t is in, in parentheses after the
// offset.
func zoneName(t time.Time) string {
	if names, ok := zoneNames[t.Location().String()]; ok {
		if t.IsDST() && names[1] != "" {
			return names[1]
		}
		return names[0]
	}
	abbr, offset := t.Zone()
	if abbr != "" && (abbr[0] == '+' || abbr[0] == '-') {
		// The tz database has no name for it, only the offset: V8 writes
		// that as GMT-03:00.
		sign := byte('+')
		if offset < 0 {
			sign, offset = '-', -offset
		}
		return fmt.Sprintf("GMT%c%02d:%02d", sign, offset/3600, offset/60%60)
	}
	return abbr
}

// formatWithZone is t in layout, which ends in "GMT-0700", followed by the
// zone's name in parentheses.
func formatWithZone(t time.Time, layout string) string {
	return t.Format(layout) + " (" + zoneName(t) + ")"
}
