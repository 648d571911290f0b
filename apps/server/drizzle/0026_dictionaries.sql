-- Issue 13 item 5: the drug, diagnosis, surgery and examination dictionaries. One `dictionaries` row per imported
-- version of a kind's code list (at most one active per kind: what the coding fields search); its terms with their
-- zh/en names and synonyms; and the search keys of each term (code, zh term, en term and its later words, synonyms,
-- pinyin initials and full pinyin of the zh term and of zh synonyms), normalised (NFKC, lower case, single spaces),
-- so that every kind of match is one prefix range of the `dictionary_keys_prefix` btree (text_pattern_ops: byte
-- order, used by the ~>=~ / ~<~ range operators whatever the database's collation). Versions are never deleted.
CREATE TABLE "dictionaries" (
  "id" serial PRIMARY KEY,
  "kind" varchar(12) NOT NULL,
  "version" varchar(50) NOT NULL,
  "name" varchar(100) NOT NULL,
  "source" varchar(500),
  "term_count" integer NOT NULL DEFAULT 0,
  "active" boolean NOT NULL DEFAULT false,
  "created_by" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "activated_by" integer REFERENCES "users"("id"),
  "activated_at" timestamp with time zone,
  CONSTRAINT "dictionaries_kind" CHECK ("kind" in ('drug', 'diagnosis', 'surgery', 'examination'))
);
--> statement-breakpoint
-- a version label once per kind, in any letter case
CREATE UNIQUE INDEX "dictionaries_version" ON "dictionaries" ("kind", lower("version"));
--> statement-breakpoint
-- one active version per kind
CREATE UNIQUE INDEX "dictionaries_active" ON "dictionaries" ("kind") WHERE "active";
--> statement-breakpoint
CREATE TABLE "dictionary_terms" (
  "id" serial PRIMARY KEY,
  "dictionary_id" integer NOT NULL REFERENCES "dictionaries"("id") ON DELETE CASCADE,
  "row_no" integer NOT NULL,
  "code" varchar(50) NOT NULL,
  "term_zh" varchar(200),
  "term_en" varchar(300),
  "synonyms" varchar(200)[] NOT NULL DEFAULT '{}'::varchar[],
  -- normalised code, terms and synonyms, one per line: the contains-match fallback and the term list's filter
  "search" text NOT NULL,
  CONSTRAINT "dictionary_terms_term" CHECK ("term_zh" IS NOT NULL OR "term_en" IS NOT NULL)
);
--> statement-breakpoint
-- a code once per version, in any letter case
CREATE UNIQUE INDEX "dictionary_terms_code" ON "dictionary_terms" ("dictionary_id", lower("code"));
--> statement-breakpoint
CREATE INDEX "dictionary_terms_row" ON "dictionary_terms" ("dictionary_id", "row_no");
--> statement-breakpoint
-- kind: 1 code, 2 zh term, 3 en term, 4 synonym, 5 pinyin initials, 6 full pinyin, 7 a later word of the en term
-- onwards; syn: which synonym (0-based) a synonym key or a synonym's pinyin comes from, else null. Derived rows,
-- written only with their terms (about five per term): no foreign keys, whose per-row checks would cost an import of
-- 100,000 terms most of its time.
CREATE TABLE "dictionary_keys" (
  "dictionary_id" integer NOT NULL,
  "term_id" integer NOT NULL,
  "kind" smallint NOT NULL,
  "syn" smallint,
  "key" text NOT NULL,
  CONSTRAINT "dictionary_keys_kind" CHECK ("kind" BETWEEN 1 AND 7)
);
--> statement-breakpoint
CREATE INDEX "dictionary_keys_prefix" ON "dictionary_keys" ("dictionary_id", "kind", "key" text_pattern_ops);
