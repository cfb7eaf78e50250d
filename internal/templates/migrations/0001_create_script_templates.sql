-- Global script templates (DESIGN.md §6). The application assigns ids
-- (UUIDv7) and timestamps; the checks repeat the rules a draft passes
-- before it is written, so no other writer can store what the API refuses.
CREATE TABLE script_templates (
    id          uuid        PRIMARY KEY,
    name        text        NOT NULL CHECK (btrim(name) <> '' AND char_length(name) <= 120),
    description text        NOT NULL DEFAULT '' CHECK (char_length(description) <= 2000),
    source      text        NOT NULL CHECK (btrim(source) <> ''),
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL CHECK (updated_at >= created_at)
);

-- GET /script-templates lists newest first.
CREATE INDEX script_templates_created_at_idx ON script_templates (created_at DESC, id DESC);
