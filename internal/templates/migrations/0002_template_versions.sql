-- Versions (issue 19). Every content a template has held — name,
-- description and source together — is a row of script_template_versions,
-- numbered from 1; script_templates.version is the current one. Triggers
-- keep both, whoever writes the table (this release, an older replica in a
-- rolling upgrade, or an operator's SQL): an INSERT is version 1, an UPDATE
-- that changes the content is the next version, an UPDATE that changes
-- nothing keeps the version and updated_at. A version row is never changed;
-- deleting a template deletes its versions.
ALTER TABLE script_templates ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version >= 1);

CREATE TABLE script_template_versions (
    template_id   uuid        NOT NULL REFERENCES script_templates (id) ON DELETE CASCADE,
    version       integer     NOT NULL CHECK (version >= 1),
    name          text        NOT NULL CHECK (btrim(name) <> '' AND char_length(name) <= 120),
    description   text        NOT NULL DEFAULT '' CHECK (char_length(description) <= 2000),
    source        text        NOT NULL CHECK (btrim(source) <> ''),
    source_sha256 text        NOT NULL CHECK (source_sha256 ~ '^[0-9a-f]{64}$'),
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (template_id, version)
);

-- What existed before versions is version 1, written when it was last
-- updated.
INSERT INTO script_template_versions (template_id, version, name, description, source, source_sha256, created_at)
SELECT id, 1, name, description, source, encode(sha256(convert_to(source, 'UTF8')), 'hex'), updated_at
FROM script_templates;

CREATE FUNCTION script_templates_number_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.version := 1;
    ELSIF (NEW.name, NEW.description, NEW.source) IS NOT DISTINCT FROM (OLD.name, OLD.description, OLD.source) THEN
        NEW.version := OLD.version;
        NEW.updated_at := OLD.updated_at;
    ELSE
        NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER script_templates_number_version
    BEFORE INSERT OR UPDATE ON script_templates
    FOR EACH ROW EXECUTE FUNCTION script_templates_number_version();

-- AFTER, so the template row exists for the foreign key.
CREATE FUNCTION script_templates_record_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.version <> OLD.version THEN
        INSERT INTO script_template_versions (template_id, version, name, description, source, source_sha256, created_at)
        VALUES (NEW.id, NEW.version, NEW.name, NEW.description, NEW.source,
                encode(sha256(convert_to(NEW.source, 'UTF8')), 'hex'), NEW.updated_at);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER script_templates_record_version
    AFTER INSERT OR UPDATE ON script_templates
    FOR EACH ROW EXECUTE FUNCTION script_templates_record_version();

CREATE FUNCTION script_template_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'script template version % of % is immutable: save the template again to store a new version', OLD.version, OLD.template_id
        USING ERRCODE = 'restrict_violation';
END
$$;

CREATE TRIGGER script_template_versions_immutable
    BEFORE UPDATE ON script_template_versions
    FOR EACH ROW EXECUTE FUNCTION script_template_versions_immutable();
