-- search_text() folds what a pasted or an East Asian keyboard's text holds (docs/finding-companies.md,
-- "What is forgiven"): compatibility forms by Unicode's NFKC (fullwidth `ｓｔｒｉｐｅ` is `stripe`, the
-- ligature `ﬁ` is `fi`, a letter and a combining accent are the accented letter), and the invisible
-- characters (Unicode's default ignorable code points of the Basic Multilingual Plane: the soft hyphen,
-- zero-width spaces and joiners, direction marks, variation selectors, the byte order mark) are
-- dropped, so `stri\u00adpe` is `stripe`, not the two words `stri pe`. ™ and ℠ are symbols, as before
-- (`Anchor™` is `anchor`): NFKC would write them as the letters TM and SM. normalize() is immutable
-- and built into PostgreSQL and the embedded database (both UTF-8), so no extension is needed.
SET LOCAL statement_timeout = 0;

CREATE OR REPLACE FUNCTION "search_text"(value text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN btrim(regexp_replace(regexp_replace(regexp_replace(
  lower(translate(replace(replace(replace(replace(replace(
    normalize(regexp_replace(value, '[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]|[\u2120\u2122]', '', 'g'), NFKC),
    'ß', 'ss'), 'Æ', 'ae'), 'æ', 'ae'), 'Œ', 'oe'), 'œ', 'oe'),
    'ÀÁÂÃÄÅĀĂĄàáâãäåāăąÇĆĈĊČçćĉċčĎĐÐďđðÈÉÊËĒĔĖĘĚèéêëēĕėęěĜĞĠĢĝğġģĤĦĥħÌÍÎÏĨĪĬĮİìíîïĩīĭįıĴĵĶķĹĻĽĿŁĺļľŀłÑŃŅŇñńņňÒÓÔÕÖØŌŎŐòóôõöøōŏőŔŖŘŕŗřŚŜŞŠȘśŝşšșŢŤŦȚţťŧțÙÚÛÜŨŪŬŮŰŲùúûüũūŭůűųŴŵÝŸŶýÿŷŹŻŽźżž',
    'aaaaaaaaaaaaaaaaaaccccccccccddddddeeeeeeeeeeeeeeeeeegggggggghhhhiiiiiiiiiiiiiiiiiijjkkllllllllllnnnnnnnnoooooooooooooooooorrrrrrssssssssssttttttttuuuuuuuuuuuuuuuuuuuuwwyyyyyyzzzzzz')),
  '[''’‘`´.]', '', 'g'),
  '[^a-z0-9\u00c0-\u024f\u0370-\u1fff\u3040-\ud7ff\uf900-\ufaff]+', ' ', 'g'),
  '( (inc|incorporated|corp|corporation|co|company|ltd|limited|llc|llp|lp|plc|gmbh|ag|kg|ug|sa|sas|sarl|srl|spa|bv|nv|ab|oy|aps|pty|pte|kk))+ ?$', '', 'g'));

-- The stored names follow the function: a generated column is computed again only when its table
-- is rewritten, which dropping and adding it does (no trigger fires, so the changes feed hears
-- nothing: no field of a record changed). The indexes on it go and come back with it.
ALTER TABLE "entities" DROP COLUMN "search_name";
ALTER TABLE "founders" DROP COLUMN "search_name";
ALTER TABLE "entities" ADD COLUMN "search_name" text NOT NULL GENERATED ALWAYS AS (search_text("name")) STORED;
ALTER TABLE "founders" ADD COLUMN "search_name" text NOT NULL GENERATED ALWAYS AS (search_text("name")) STORED;
CREATE INDEX "entities_search_name_idx" ON "entities" (("search_name" COLLATE "C"), "total_funding_usd" DESC, "id")
  WHERE "deleted_at" IS NULL;
CREATE INDEX "founders_search_name_idx" ON "founders" (("search_name" COLLATE "C"), "id");

-- The names now written differently join the lists of names (and, by the lists' insert trigger,
-- matching's variants and words of them); the lists only grow, and a name no row has any more finds
-- nothing. Emptying and filling them again would leave every name as a dead row that each trigram
-- search reads until a vacuum, and the embedded database never vacuums. Then matching's word counts
-- and statistics, which change only where a name did.
INSERT INTO "entity_search_names" ("name") SELECT DISTINCT e."search_name" FROM "entities" e
 WHERE NOT EXISTS (SELECT 1 FROM "entity_search_names" l WHERE l."name" = e."search_name");
INSERT INTO "founder_search_names" ("name") SELECT DISTINCT f."search_name" FROM "founders" f
 WHERE NOT EXISTS (SELECT 1 FROM "founder_search_names" l WHERE l."name" = f."search_name");
SELECT match_statistics_refresh();

-- The columns' statistics went with them: without these, the planner takes every name for a common
-- one and the search's look-ups for scans, and custom plans for each search over its generic one.
ANALYZE "entities", "founders";
