-- The name filter's key (issue: PostgreSQL's lower() follows the database's
-- LC_CTYPE, and under C it lowers only ASCII letters, so "validação" did
-- not find "VALIDAÇÃO"). name_key is the name lowered by the service, as the
-- embedded store lowers it, and name_key_of the name it was made from. The
-- filter reads name_key while name_key_of is still the name, lower(name)
-- otherwise: a row an older replica wrote in a rolling upgrade, or an
-- operator's SQL, is matched as before until the service next starts and
-- fills its key. No trigger is needed: a stale key never matches.
ALTER TABLE script_templates ADD COLUMN name_key text, ADD COLUMN name_key_of text;

-- Its index is on the new expression (nameIndex builds it where pg_trgm
-- can be had).
DROP INDEX IF EXISTS script_templates_name_trgm_idx;
