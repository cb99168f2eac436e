-- SQL functions the query language (src/data/query/dialect.ts, PostgreSQL dialect) calls, with
-- the results of the JavaScript in src/data/query/functions.ts that SQLite runs (src/db/functions.ts),
-- and the index property queries use. Unqualified names: each instance (each test) may work in a
-- schema of its own (search_path).
--
-- Why each function gives JavaScript's answer is argued next to it; test/query/postgres.test.ts
-- checks them against functions.ts on generated inputs. Written by test/query/postgres-functions.ts
-- (the tables from Node's Unicode data, fdlibm's constants as exact doubles).
DO $check$
BEGIN
  IF current_setting('server_encoding') <> 'UTF8' THEN
    RAISE EXCEPTION 'idp needs a UTF8 database (this one is %)', current_setting('server_encoding');
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu') THEN
    RAISE EXCEPTION 'idp needs PostgreSQL built with ICU (collation "und-x-icu" is missing): case-insensitive queries fold Unicode case with it';
  END IF;
END
$check$;
--> statement-breakpoint
-- foldCase: String.prototype.toLowerCase, ICU's full default lower-casing (root locale). ICU's
-- lower() does the same — context-sensitive final sigma, İ → i̇ — for every character its Unicode
-- version knows; translate() adds the case pairs of Unicode 16 and 17, which JavaScript (Node 20,
-- ICU 78) knows and PostgreSQL's ICU may not (a no-op where it does), only where one of those
-- characters occurs, as translate is slow. ASCII text folds to ASCII text, A-Z to a-z, in both.
CREATE OR REPLACE FUNCTION idp_fold(value text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
BEGIN
  IF octet_length(value) = char_length(value) THEN RETURN lower(value COLLATE "C"); END IF;
  IF value COLLATE "C" ~ E'[\\u1c89\\ua7cb-\\ua7cc\\ua7ce\\ua7d2\\ua7d4\\ua7da\\ua7dc\\U00010d50-\\U00010d65\\U00016ea0-\\U00016eb8]' THEN
    RETURN translate(lower(value COLLATE "und-x-icu"), E'\u1c89\ua7cb\ua7cc\ua7ce\ua7d2\ua7d4\ua7da\ua7dc\U00010d50\U00010d51\U00010d52\U00010d53\U00010d54\U00010d55\U00010d56\U00010d57\U00010d58\U00010d59\U00010d5a\U00010d5b\U00010d5c\U00010d5d\U00010d5e\U00010d5f\U00010d60\U00010d61\U00010d62\U00010d63\U00010d64\U00010d65\U00016ea0\U00016ea1\U00016ea2\U00016ea3\U00016ea4\U00016ea5\U00016ea6\U00016ea7\U00016ea8\U00016ea9\U00016eaa\U00016eab\U00016eac\U00016ead\U00016eae\U00016eaf\U00016eb0\U00016eb1\U00016eb2\U00016eb3\U00016eb4\U00016eb5\U00016eb6\U00016eb7\U00016eb8', E'\u1c8a\u0264\ua7cd\ua7cf\ua7d3\ua7d5\ua7db\u019b\U00010d70\U00010d71\U00010d72\U00010d73\U00010d74\U00010d75\U00010d76\U00010d77\U00010d78\U00010d79\U00010d7a\U00010d7b\U00010d7c\U00010d7d\U00010d7e\U00010d7f\U00010d80\U00010d81\U00010d82\U00010d83\U00010d84\U00010d85\U00016ebb\U00016ebc\U00016ebd\U00016ebe\U00016ebf\U00016ec0\U00016ec1\U00016ec2\U00016ec3\U00016ec4\U00016ec5\U00016ec6\U00016ec7\U00016ec8\U00016ec9\U00016eca\U00016ecb\U00016ecc\U00016ecd\U00016ece\U00016ecf\U00016ed0\U00016ed1\U00016ed2\U00016ed3');
  END IF;
  RETURN lower(value COLLATE "und-x-icu");
END
$$;
--> statement-breakpoint
-- hasPrefix (String.prototype.startsWith) on folded text: code-point equality of the prefix.
-- FALSE, not NULL, for a NULL argument, as SQLite's idp_starts_with gives 0.
CREATE OR REPLACE FUNCTION idp_starts_with(value text, prefix text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT coalesce(starts_with(value COLLATE "C", prefix COLLATE "C"), false) $$;
--> statement-breakpoint
-- splitWords(text).join(' '): the text folded, then every run of characters outside
-- [\p{L}\p{M}\p{N}] becomes one space, trimmed at both ends. The bracket lists that class's
-- code-point ranges as JavaScript's /u regular expressions know it (Unicode 17.0); in ASCII it is
-- [0-9A-Za-z], after folding [0-9a-z], a much cheaper expression. Words never contain a space,
-- so the words are exactly the space-separated parts.
CREATE OR REPLACE FUNCTION idp_words(value text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  folded text := idp_fold(value) COLLATE "C";
BEGIN
  IF octet_length(folded) = char_length(folded) THEN
    RETURN btrim(regexp_replace(folded, '[^0-9a-z]+', ' ', 'g'), ' ');
  END IF;
  RETURN btrim(regexp_replace(folded, E'[^\\u0030-\\u0039\\u0041-\\u005a\\u0061-\\u007a\\u00aa\\u00b2-\\u00b3\\u00b5\\u00b9-\\u00ba\\u00bc-\\u00be\\u00c0-\\u00d6\\u00d8-\\u00f6\\u00f8-\\u02c1\\u02c6-\\u02d1\\u02e0-\\u02e4\\u02ec\\u02ee\\u0300-\\u0374\\u0376-\\u0377\\u037a-\\u037d\\u037f\\u0386\\u0388-\\u038a\\u038c\\u038e-\\u03a1\\u03a3-\\u03f5\\u03f7-\\u0481\\u0483-\\u052f\\u0531-\\u0556\\u0559\\u0560-\\u0588\\u0591-\\u05bd\\u05bf\\u05c1-\\u05c2\\u05c4-\\u05c5\\u05c7\\u05d0-\\u05ea\\u05ef-\\u05f2\\u0610-\\u061a\\u0620-\\u0669\\u066e-\\u06d3\\u06d5-\\u06dc\\u06df-\\u06e8\\u06ea-\\u06fc\\u06ff\\u0710-\\u074a\\u074d-\\u07b1\\u07c0-\\u07f5\\u07fa\\u07fd\\u0800-\\u082d\\u0840-\\u085b\\u0860-\\u086a\\u0870-\\u0887\\u0889-\\u088f\\u0897-\\u08e1\\u08e3-\\u0963\\u0966-\\u096f\\u0971-\\u0983\\u0985-\\u098c\\u098f-\\u0990\\u0993-\\u09a8\\u09aa-\\u09b0\\u09b2\\u09b6-\\u09b9\\u09bc-\\u09c4\\u09c7-\\u09c8\\u09cb-\\u09ce\\u09d7\\u09dc-\\u09dd\\u09df-\\u09e3\\u09e6-\\u09f1\\u09f4-\\u09f9\\u09fc\\u09fe\\u0a01-\\u0a03\\u0a05-\\u0a0a\\u0a0f-\\u0a10\\u0a13-\\u0a28\\u0a2a-\\u0a30\\u0a32-\\u0a33\\u0a35-\\u0a36\\u0a38-\\u0a39\\u0a3c\\u0a3e-\\u0a42\\u0a47-\\u0a48\\u0a4b-\\u0a4d\\u0a51\\u0a59-\\u0a5c\\u0a5e\\u0a66-\\u0a75\\u0a81-\\u0a83\\u0a85-\\u0a8d\\u0a8f-\\u0a91\\u0a93-\\u0aa8\\u0aaa-\\u0ab0\\u0ab2-\\u0ab3\\u0ab5-\\u0ab9\\u0abc-\\u0ac5\\u0ac7-\\u0ac9\\u0acb-\\u0acd\\u0ad0\\u0ae0-\\u0ae3\\u0ae6-\\u0aef\\u0af9-\\u0aff\\u0b01-\\u0b03\\u0b05-\\u0b0c\\u0b0f-\\u0b10\\u0b13-\\u0b28\\u0b2a-\\u0b30\\u0b32-\\u0b33\\u0b35-\\u0b39\\u0b3c-\\u0b44\\u0b47-\\u0b48\\u0b4b-\\u0b4d\\u0b55-\\u0b57\\u0b5c-\\u0b5d\\u0b5f-\\u0b63\\u0b66-\\u0b6f\\u0b71-\\u0b77\\u0b82-\\u0b83\\u0b85-\\u0b8a\\u0b8e-\\u0b90\\u0b92-\\u0b95\\u0b99-\\u0b9a\\u0b9c\\u0b9e-\\u0b9f\\u0ba3-\\u0ba4\\u0ba8-\\u0baa\\u0bae-\\u0bb9\\u0bbe-\\u0bc2\\u0bc6-\\u0bc8\\u0bca-\\u0bcd\\u0bd0\\u0bd7\\u0be6-\\u0bf2\\u0c00-\\u0c0c\\u0c0e-\\u0c10\\u0c12-\\u0c28\\u0c2a-\\u0c39\\u0c3c-\\u0c44\\u0c46-\\u0c48\\u0c4a-\\u0c4d\\u0c55-\\u0c56\\u0c58-\\u0c5a\\u0c5c-\\u0c5d\\u0c60-\\u0c63\\u0c66-\\u0c6f\\u0c78-\\u0c7e\\u0c80-\\u0c83\\u0c85-\\u0c8c\\u0c8e-\\u0c90\\u0c92-\\u0ca8\\u0caa-\\u0cb3\\u0cb5-\\u0cb9\\u0cbc-\\u0cc4\\u0cc6-\\u0cc8\\u0cca-\\u0ccd\\u0cd5-\\u0cd6\\u0cdc-\\u0cde\\u0ce0-\\u0ce3\\u0ce6-\\u0cef\\u0cf1-\\u0cf3\\u0d00-\\u0d0c\\u0d0e-\\u0d10\\u0d12-\\u0d44\\u0d46-\\u0d48\\u0d4a-\\u0d4e\\u0d54-\\u0d63\\u0d66-\\u0d78\\u0d7a-\\u0d7f\\u0d81-\\u0d83\\u0d85-\\u0d96\\u0d9a-\\u0db1\\u0db3-\\u0dbb\\u0dbd\\u0dc0-\\u0dc6\\u0dca\\u0dcf-\\u0dd4\\u0dd6\\u0dd8-\\u0ddf\\u0de6-\\u0def\\u0df2-\\u0df3\\u0e01-\\u0e3a\\u0e40-\\u0e4e\\u0e50-\\u0e59\\u0e81-\\u0e82\\u0e84\\u0e86-\\u0e8a\\u0e8c-\\u0ea3\\u0ea5\\u0ea7-\\u0ebd\\u0ec0-\\u0ec4\\u0ec6\\u0ec8-\\u0ece\\u0ed0-\\u0ed9\\u0edc-\\u0edf\\u0f00\\u0f18-\\u0f19\\u0f20-\\u0f33\\u0f35\\u0f37\\u0f39\\u0f3e-\\u0f47\\u0f49-\\u0f6c\\u0f71-\\u0f84\\u0f86-\\u0f97\\u0f99-\\u0fbc\\u0fc6\\u1000-\\u1049\\u1050-\\u109d\\u10a0-\\u10c5\\u10c7\\u10cd\\u10d0-\\u10fa\\u10fc-\\u1248\\u124a-\\u124d\\u1250-\\u1256\\u1258\\u125a-\\u125d\\u1260-\\u1288\\u128a-\\u128d\\u1290-\\u12b0\\u12b2-\\u12b5\\u12b8-\\u12be\\u12c0\\u12c2-\\u12c5\\u12c8-\\u12d6\\u12d8-\\u1310\\u1312-\\u1315\\u1318-\\u135a\\u135d-\\u135f\\u1369-\\u137c\\u1380-\\u138f\\u13a0-\\u13f5\\u13f8-\\u13fd\\u1401-\\u166c\\u166f-\\u167f\\u1681-\\u169a\\u16a0-\\u16ea\\u16ee-\\u16f8\\u1700-\\u1715\\u171f-\\u1734\\u1740-\\u1753\\u1760-\\u176c\\u176e-\\u1770\\u1772-\\u1773\\u1780-\\u17d3\\u17d7\\u17dc-\\u17dd\\u17e0-\\u17e9\\u17f0-\\u17f9\\u180b-\\u180d\\u180f-\\u1819\\u1820-\\u1878\\u1880-\\u18aa\\u18b0-\\u18f5\\u1900-\\u191e\\u1920-\\u192b\\u1930-\\u193b\\u1946-\\u196d\\u1970-\\u1974\\u1980-\\u19ab\\u19b0-\\u19c9\\u19d0-\\u19da\\u1a00-\\u1a1b\\u1a20-\\u1a5e\\u1a60-\\u1a7c\\u1a7f-\\u1a89\\u1a90-\\u1a99\\u1aa7\\u1ab0-\\u1add\\u1ae0-\\u1aeb\\u1b00-\\u1b4c\\u1b50-\\u1b59\\u1b6b-\\u1b73\\u1b80-\\u1bf3\\u1c00-\\u1c37\\u1c40-\\u1c49\\u1c4d-\\u1c7d\\u1c80-\\u1c8a\\u1c90-\\u1cba\\u1cbd-\\u1cbf\\u1cd0-\\u1cd2\\u1cd4-\\u1cfa\\u1d00-\\u1f15\\u1f18-\\u1f1d\\u1f20-\\u1f45\\u1f48-\\u1f4d\\u1f50-\\u1f57\\u1f59\\u1f5b\\u1f5d\\u1f5f-\\u1f7d\\u1f80-\\u1fb4\\u1fb6-\\u1fbc\\u1fbe\\u1fc2-\\u1fc4\\u1fc6-\\u1fcc\\u1fd0-\\u1fd3\\u1fd6-\\u1fdb\\u1fe0-\\u1fec\\u1ff2-\\u1ff4\\u1ff6-\\u1ffc\\u2070-\\u2071\\u2074-\\u2079\\u207f-\\u2089\\u2090-\\u209c\\u20d0-\\u20f0\\u2102\\u2107\\u210a-\\u2113\\u2115\\u2119-\\u211d\\u2124\\u2126\\u2128\\u212a-\\u212d\\u212f-\\u2139\\u213c-\\u213f\\u2145-\\u2149\\u214e\\u2150-\\u2189\\u2460-\\u249b\\u24ea-\\u24ff\\u2776-\\u2793\\u2c00-\\u2ce4\\u2ceb-\\u2cf3\\u2cfd\\u2d00-\\u2d25\\u2d27\\u2d2d\\u2d30-\\u2d67\\u2d6f\\u2d7f-\\u2d96\\u2da0-\\u2da6\\u2da8-\\u2dae\\u2db0-\\u2db6\\u2db8-\\u2dbe\\u2dc0-\\u2dc6\\u2dc8-\\u2dce\\u2dd0-\\u2dd6\\u2dd8-\\u2dde\\u2de0-\\u2dff\\u2e2f\\u3005-\\u3007\\u3021-\\u302f\\u3031-\\u3035\\u3038-\\u303c\\u3041-\\u3096\\u3099-\\u309a\\u309d-\\u309f\\u30a1-\\u30fa\\u30fc-\\u30ff\\u3105-\\u312f\\u3131-\\u318e\\u3192-\\u3195\\u31a0-\\u31bf\\u31f0-\\u31ff\\u3220-\\u3229\\u3248-\\u324f\\u3251-\\u325f\\u3280-\\u3289\\u32b1-\\u32bf\\u3400-\\u4dbf\\u4e00-\\ua48c\\ua4d0-\\ua4fd\\ua500-\\ua60c\\ua610-\\ua62b\\ua640-\\ua672\\ua674-\\ua67d\\ua67f-\\ua6f1\\ua717-\\ua71f\\ua722-\\ua788\\ua78b-\\ua7dc\\ua7f1-\\ua827\\ua82c\\ua830-\\ua835\\ua840-\\ua873\\ua880-\\ua8c5\\ua8d0-\\ua8d9\\ua8e0-\\ua8f7\\ua8fb\\ua8fd-\\ua92d\\ua930-\\ua953\\ua960-\\ua97c\\ua980-\\ua9c0\\ua9cf-\\ua9d9\\ua9e0-\\ua9fe\\uaa00-\\uaa36\\uaa40-\\uaa4d\\uaa50-\\uaa59\\uaa60-\\uaa76\\uaa7a-\\uaac2\\uaadb-\\uaadd\\uaae0-\\uaaef\\uaaf2-\\uaaf6\\uab01-\\uab06\\uab09-\\uab0e\\uab11-\\uab16\\uab20-\\uab26\\uab28-\\uab2e\\uab30-\\uab5a\\uab5c-\\uab69\\uab70-\\uabea\\uabec-\\uabed\\uabf0-\\uabf9\\uac00-\\ud7a3\\ud7b0-\\ud7c6\\ud7cb-\\ud7fb\\uf900-\\ufa6d\\ufa70-\\ufad9\\ufb00-\\ufb06\\ufb13-\\ufb17\\ufb1d-\\ufb28\\ufb2a-\\ufb36\\ufb38-\\ufb3c\\ufb3e\\ufb40-\\ufb41\\ufb43-\\ufb44\\ufb46-\\ufbb1\\ufbd3-\\ufd3d\\ufd50-\\ufd8f\\ufd92-\\ufdc7\\ufdf0-\\ufdfb\\ufe00-\\ufe0f\\ufe20-\\ufe2f\\ufe70-\\ufe74\\ufe76-\\ufefc\\uff10-\\uff19\\uff21-\\uff3a\\uff41-\\uff5a\\uff66-\\uffbe\\uffc2-\\uffc7\\uffca-\\uffcf\\uffd2-\\uffd7\\uffda-\\uffdc\\U00010000-\\U0001000b\\U0001000d-\\U00010026\\U00010028-\\U0001003a\\U0001003c-\\U0001003d\\U0001003f-\\U0001004d\\U00010050-\\U0001005d\\U00010080-\\U000100fa\\U00010107-\\U00010133\\U00010140-\\U00010178\\U0001018a-\\U0001018b\\U000101fd\\U00010280-\\U0001029c\\U000102a0-\\U000102d0\\U000102e0-\\U000102fb\\U00010300-\\U00010323\\U0001032d-\\U0001034a\\U00010350-\\U0001037a\\U00010380-\\U0001039d\\U000103a0-\\U000103c3\\U000103c8-\\U000103cf\\U000103d1-\\U000103d5\\U00010400-\\U0001049d\\U000104a0-\\U000104a9\\U000104b0-\\U000104d3\\U000104d8-\\U000104fb\\U00010500-\\U00010527\\U00010530-\\U00010563\\U00010570-\\U0001057a\\U0001057c-\\U0001058a\\U0001058c-\\U00010592\\U00010594-\\U00010595\\U00010597-\\U000105a1\\U000105a3-\\U000105b1\\U000105b3-\\U000105b9\\U000105bb-\\U000105bc\\U000105c0-\\U000105f3\\U00010600-\\U00010736\\U00010740-\\U00010755\\U00010760-\\U00010767\\U00010780-\\U00010785\\U00010787-\\U000107b0\\U000107b2-\\U000107ba\\U00010800-\\U00010805\\U00010808\\U0001080a-\\U00010835\\U00010837-\\U00010838\\U0001083c\\U0001083f-\\U00010855\\U00010858-\\U00010876\\U00010879-\\U0001089e\\U000108a7-\\U000108af\\U000108e0-\\U000108f2\\U000108f4-\\U000108f5\\U000108fb-\\U0001091b\\U00010920-\\U00010939\\U00010940-\\U00010959\\U00010980-\\U000109b7\\U000109bc-\\U000109cf\\U000109d2-\\U00010a03\\U00010a05-\\U00010a06\\U00010a0c-\\U00010a13\\U00010a15-\\U00010a17\\U00010a19-\\U00010a35\\U00010a38-\\U00010a3a\\U00010a3f-\\U00010a48\\U00010a60-\\U00010a7e\\U00010a80-\\U00010a9f\\U00010ac0-\\U00010ac7\\U00010ac9-\\U00010ae6\\U00010aeb-\\U00010aef\\U00010b00-\\U00010b35\\U00010b40-\\U00010b55\\U00010b58-\\U00010b72\\U00010b78-\\U00010b91\\U00010ba9-\\U00010baf\\U00010c00-\\U00010c48\\U00010c80-\\U00010cb2\\U00010cc0-\\U00010cf2\\U00010cfa-\\U00010d27\\U00010d30-\\U00010d39\\U00010d40-\\U00010d65\\U00010d69-\\U00010d6d\\U00010d6f-\\U00010d85\\U00010e60-\\U00010e7e\\U00010e80-\\U00010ea9\\U00010eab-\\U00010eac\\U00010eb0-\\U00010eb1\\U00010ec2-\\U00010ec7\\U00010efa-\\U00010f27\\U00010f30-\\U00010f54\\U00010f70-\\U00010f85\\U00010fb0-\\U00010fcb\\U00010fe0-\\U00010ff6\\U00011000-\\U00011046\\U00011052-\\U00011075\\U0001107f-\\U000110ba\\U000110c2\\U000110d0-\\U000110e8\\U000110f0-\\U000110f9\\U00011100-\\U00011134\\U00011136-\\U0001113f\\U00011144-\\U00011147\\U00011150-\\U00011173\\U00011176\\U00011180-\\U000111c4\\U000111c9-\\U000111cc\\U000111ce-\\U000111da\\U000111dc\\U000111e1-\\U000111f4\\U00011200-\\U00011211\\U00011213-\\U00011237\\U0001123e-\\U00011241\\U00011280-\\U00011286\\U00011288\\U0001128a-\\U0001128d\\U0001128f-\\U0001129d\\U0001129f-\\U000112a8\\U000112b0-\\U000112ea\\U000112f0-\\U000112f9\\U00011300-\\U00011303\\U00011305-\\U0001130c\\U0001130f-\\U00011310\\U00011313-\\U00011328\\U0001132a-\\U00011330\\U00011332-\\U00011333\\U00011335-\\U00011339\\U0001133b-\\U00011344\\U00011347-\\U00011348\\U0001134b-\\U0001134d\\U00011350\\U00011357\\U0001135d-\\U00011363\\U00011366-\\U0001136c\\U00011370-\\U00011374\\U00011380-\\U00011389\\U0001138b\\U0001138e\\U00011390-\\U000113b5\\U000113b7-\\U000113c0\\U000113c2\\U000113c5\\U000113c7-\\U000113ca\\U000113cc-\\U000113d3\\U000113e1-\\U000113e2\\U00011400-\\U0001144a\\U00011450-\\U00011459\\U0001145e-\\U00011461\\U00011480-\\U000114c5\\U000114c7\\U000114d0-\\U000114d9\\U00011580-\\U000115b5\\U000115b8-\\U000115c0\\U000115d8-\\U000115dd\\U00011600-\\U00011640\\U00011644\\U00011650-\\U00011659\\U00011680-\\U000116b8\\U000116c0-\\U000116c9\\U000116d0-\\U000116e3\\U00011700-\\U0001171a\\U0001171d-\\U0001172b\\U00011730-\\U0001173b\\U00011740-\\U00011746\\U00011800-\\U0001183a\\U000118a0-\\U000118f2\\U000118ff-\\U00011906\\U00011909\\U0001190c-\\U00011913\\U00011915-\\U00011916\\U00011918-\\U00011935\\U00011937-\\U00011938\\U0001193b-\\U00011943\\U00011950-\\U00011959\\U000119a0-\\U000119a7\\U000119aa-\\U000119d7\\U000119da-\\U000119e1\\U000119e3-\\U000119e4\\U00011a00-\\U00011a3e\\U00011a47\\U00011a50-\\U00011a99\\U00011a9d\\U00011ab0-\\U00011af8\\U00011b60-\\U00011b67\\U00011bc0-\\U00011be0\\U00011bf0-\\U00011bf9\\U00011c00-\\U00011c08\\U00011c0a-\\U00011c36\\U00011c38-\\U00011c40\\U00011c50-\\U00011c6c\\U00011c72-\\U00011c8f\\U00011c92-\\U00011ca7\\U00011ca9-\\U00011cb6\\U00011d00-\\U00011d06\\U00011d08-\\U00011d09\\U00011d0b-\\U00011d36\\U00011d3a\\U00011d3c-\\U00011d3d\\U00011d3f-\\U00011d47\\U00011d50-\\U00011d59\\U00011d60-\\U00011d65\\U00011d67-\\U00011d68\\U00011d6a-\\U00011d8e\\U00011d90-\\U00011d91\\U00011d93-\\U00011d98\\U00011da0-\\U00011da9\\U00011db0-\\U00011ddb\\U00011de0-\\U00011de9\\U00011ee0-\\U00011ef6\\U00011f00-\\U00011f10\\U00011f12-\\U00011f3a\\U00011f3e-\\U00011f42\\U00011f50-\\U00011f5a\\U00011fb0\\U00011fc0-\\U00011fd4\\U00012000-\\U00012399\\U00012400-\\U0001246e\\U00012480-\\U00012543\\U00012f90-\\U00012ff0\\U00013000-\\U0001342f\\U00013440-\\U00013455\\U00013460-\\U000143fa\\U00014400-\\U00014646\\U00016100-\\U00016139\\U00016800-\\U00016a38\\U00016a40-\\U00016a5e\\U00016a60-\\U00016a69\\U00016a70-\\U00016abe\\U00016ac0-\\U00016ac9\\U00016ad0-\\U00016aed\\U00016af0-\\U00016af4\\U00016b00-\\U00016b36\\U00016b40-\\U00016b43\\U00016b50-\\U00016b59\\U00016b5b-\\U00016b61\\U00016b63-\\U00016b77\\U00016b7d-\\U00016b8f\\U00016d40-\\U00016d6c\\U00016d70-\\U00016d79\\U00016e40-\\U00016e96\\U00016ea0-\\U00016eb8\\U00016ebb-\\U00016ed3\\U00016f00-\\U00016f4a\\U00016f4f-\\U00016f87\\U00016f8f-\\U00016f9f\\U00016fe0-\\U00016fe1\\U00016fe3-\\U00016fe4\\U00016ff0-\\U00016ff6\\U00017000-\\U00018cd5\\U00018cff-\\U00018d1e\\U00018d80-\\U00018df2\\U0001aff0-\\U0001aff3\\U0001aff5-\\U0001affb\\U0001affd-\\U0001affe\\U0001b000-\\U0001b122\\U0001b132\\U0001b150-\\U0001b152\\U0001b155\\U0001b164-\\U0001b167\\U0001b170-\\U0001b2fb\\U0001bc00-\\U0001bc6a\\U0001bc70-\\U0001bc7c\\U0001bc80-\\U0001bc88\\U0001bc90-\\U0001bc99\\U0001bc9d-\\U0001bc9e\\U0001ccf0-\\U0001ccf9\\U0001cf00-\\U0001cf2d\\U0001cf30-\\U0001cf46\\U0001d165-\\U0001d169\\U0001d16d-\\U0001d172\\U0001d17b-\\U0001d182\\U0001d185-\\U0001d18b\\U0001d1aa-\\U0001d1ad\\U0001d242-\\U0001d244\\U0001d2c0-\\U0001d2d3\\U0001d2e0-\\U0001d2f3\\U0001d360-\\U0001d378\\U0001d400-\\U0001d454\\U0001d456-\\U0001d49c\\U0001d49e-\\U0001d49f\\U0001d4a2\\U0001d4a5-\\U0001d4a6\\U0001d4a9-\\U0001d4ac\\U0001d4ae-\\U0001d4b9\\U0001d4bb\\U0001d4bd-\\U0001d4c3\\U0001d4c5-\\U0001d505\\U0001d507-\\U0001d50a\\U0001d50d-\\U0001d514\\U0001d516-\\U0001d51c\\U0001d51e-\\U0001d539\\U0001d53b-\\U0001d53e\\U0001d540-\\U0001d544\\U0001d546\\U0001d54a-\\U0001d550\\U0001d552-\\U0001d6a5\\U0001d6a8-\\U0001d6c0\\U0001d6c2-\\U0001d6da\\U0001d6dc-\\U0001d6fa\\U0001d6fc-\\U0001d714\\U0001d716-\\U0001d734\\U0001d736-\\U0001d74e\\U0001d750-\\U0001d76e\\U0001d770-\\U0001d788\\U0001d78a-\\U0001d7a8\\U0001d7aa-\\U0001d7c2\\U0001d7c4-\\U0001d7cb\\U0001d7ce-\\U0001d7ff\\U0001da00-\\U0001da36\\U0001da3b-\\U0001da6c\\U0001da75\\U0001da84\\U0001da9b-\\U0001da9f\\U0001daa1-\\U0001daaf\\U0001df00-\\U0001df1e\\U0001df25-\\U0001df2a\\U0001e000-\\U0001e006\\U0001e008-\\U0001e018\\U0001e01b-\\U0001e021\\U0001e023-\\U0001e024\\U0001e026-\\U0001e02a\\U0001e030-\\U0001e06d\\U0001e08f\\U0001e100-\\U0001e12c\\U0001e130-\\U0001e13d\\U0001e140-\\U0001e149\\U0001e14e\\U0001e290-\\U0001e2ae\\U0001e2c0-\\U0001e2f9\\U0001e4d0-\\U0001e4f9\\U0001e5d0-\\U0001e5fa\\U0001e6c0-\\U0001e6de\\U0001e6e0-\\U0001e6f5\\U0001e6fe-\\U0001e6ff\\U0001e7e0-\\U0001e7e6\\U0001e7e8-\\U0001e7eb\\U0001e7ed-\\U0001e7ee\\U0001e7f0-\\U0001e7fe\\U0001e800-\\U0001e8c4\\U0001e8c7-\\U0001e8d6\\U0001e900-\\U0001e94b\\U0001e950-\\U0001e959\\U0001ec71-\\U0001ecab\\U0001ecad-\\U0001ecaf\\U0001ecb1-\\U0001ecb4\\U0001ed01-\\U0001ed2d\\U0001ed2f-\\U0001ed3d\\U0001ee00-\\U0001ee03\\U0001ee05-\\U0001ee1f\\U0001ee21-\\U0001ee22\\U0001ee24\\U0001ee27\\U0001ee29-\\U0001ee32\\U0001ee34-\\U0001ee37\\U0001ee39\\U0001ee3b\\U0001ee42\\U0001ee47\\U0001ee49\\U0001ee4b\\U0001ee4d-\\U0001ee4f\\U0001ee51-\\U0001ee52\\U0001ee54\\U0001ee57\\U0001ee59\\U0001ee5b\\U0001ee5d\\U0001ee5f\\U0001ee61-\\U0001ee62\\U0001ee64\\U0001ee67-\\U0001ee6a\\U0001ee6c-\\U0001ee72\\U0001ee74-\\U0001ee77\\U0001ee79-\\U0001ee7c\\U0001ee7e\\U0001ee80-\\U0001ee89\\U0001ee8b-\\U0001ee9b\\U0001eea1-\\U0001eea3\\U0001eea5-\\U0001eea9\\U0001eeab-\\U0001eebb\\U0001f100-\\U0001f10c\\U0001fbf0-\\U0001fbf9\\U00020000-\\U0002a6df\\U0002a700-\\U0002b81d\\U0002b820-\\U0002cead\\U0002ceb0-\\U0002ebe0\\U0002ebf0-\\U0002ee5d\\U0002f800-\\U0002fa1d\\U00030000-\\U0003134a\\U00031350-\\U00033479\\U000e0100-\\U000e01ef]+', ' ', 'g'), ' ');
END
$$;
--> statement-breakpoint
-- containsWords(value, term, prefix), given the term's words as splitWords(term).join(' ') —
-- computed by the caller in JavaScript (dialect.ts), once per query rather than once per row.
-- With the words of value as ' w1 w2 … wn ' and the term's as 't1 … tm', the term's words occur
-- consecutively among value's exactly when ' t1 … tm ' is a substring (a match starts and ends
-- at word boundaries, since words hold no spaces); with prefix the last term word only has to
-- start a word: ' t1 … tm' without the trailing space. No words (m = 0) matches, with prefix
-- only, any value that has a word. Every word of value is a substring of the folded value, so
-- a folded value without t1 is refused before it is split.
CREATE OR REPLACE FUNCTION idp_contains_words(value text, words text, prefix boolean) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
  found text;
BEGIN
  IF value IS NULL OR words IS NULL OR prefix IS NULL THEN RETURN false; END IF;
  IF words = '' THEN RETURN prefix AND idp_words(value) <> ''; END IF;
  IF strpos(idp_fold(value) COLLATE "C", split_part(words, ' ', 1) COLLATE "C") = 0 THEN RETURN false; END IF;
  found := ' ' || idp_words(value) || ' ';
  IF prefix THEN RETURN strpos(found COLLATE "C", (' ' || words) COLLATE "C") > 0; END IF;
  RETURN strpos(found COLLATE "C", (' ' || words || ' ') COLLATE "C") > 0;
END
$$;
--> statement-breakpoint
-- distanceMeters, to the bit. JavaScript's Math.sin, Math.cos and Math.asin are V8's ports of
-- fdlibm, which differ from the C library PostgreSQL calls in the last bit for about 1% of
-- arguments; so the fdlibm algorithms are ported below, operation for operation (IEEE double
-- arithmetic is the same everywhere; fdlibm's bit tests on the high word become comparisons
-- with the doubles those words begin). One PostgreSQL difference remains: float8 * and / raise
-- "underflow" where IEEE rounds a non-zero product to zero; idp_mul gives IEEE's answer there.

-- The binary exponent of a non-zero finite double: 2^e <= |v| < 2^(e+1) (subnormals included).
CREATE OR REPLACE FUNCTION idp_exponent(v float8) RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  x float8 := abs(v);
  e integer := greatest(-1074, least(1023, floor(ln(abs(v)) / ln(2::float8))::integer));
BEGIN
  WHILE e > -1074 AND power(2::float8, e) > x LOOP e := e - 1; END LOOP;
  WHILE e < 1023 AND power(2::float8, e + 1) <= x LOOP e := e + 1; END LOOP;
  RETURN e;
END
$$;
--> statement-breakpoint
-- a * b as IEEE computes it, for |b| <= 1 (so never overflowing): PostgreSQL computes the same
-- product but raises an error when it rounds to zero; that happens exactly when the exact
-- product is at most 2^-1075 (half the smallest subnormal; the tie rounds to even, zero).
-- With a = A·2^ea, b = B·2^eb, A and B in [1, 2): zero when A·B <= 2^E, E = -1075 - ea - eb;
-- A·B is in [1, 4), so only E = 0 and E = 1 need a look at A·B, the latter exactly: Dekker's
-- product gives A·B = p + err without rounding.
CREATE OR REPLACE FUNCTION idp_mul(a float8, b float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  ea integer; eb integer; big_e integer;
  ma float8; mb float8; p float8; split float8; ah float8; al float8; bh float8; bl float8; err float8;
BEGIN
  IF a = 0 OR b = 0 OR (abs(a) >= 1.4916681462400413e-154::float8 AND abs(b) >= 1.4916681462400413e-154::float8) THEN
    RETURN a * b;
  END IF;
  ea := idp_exponent(a);
  eb := idp_exponent(b);
  big_e := -1075 - ea - eb;
  IF big_e <= -1 THEN RETURN a * b; END IF;
  IF big_e >= 2 THEN RETURN 0; END IF;
  -- Scaling by powers of two is exact; in two steps, as 2^1074 is not a double.
  ma := abs(a) * power(2::float8, -(ea / 2)) * power(2::float8, (ea / 2) - ea);
  mb := abs(b) * power(2::float8, -(eb / 2)) * power(2::float8, (eb / 2) - eb);
  IF big_e = 0 THEN
    IF ma = 1 AND mb = 1 THEN RETURN 0; END IF;
    RETURN a * b;
  END IF;
  p := ma * mb;
  IF p < 2 THEN RETURN 0; END IF;
  IF p > 2 THEN RETURN a * b; END IF;
  split := 134217729 * ma; ah := split - (split - ma); al := ma - ah;
  split := 134217729 * mb; bh := split - (split - mb); bl := mb - bh;
  err := ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  IF err <= 0 THEN RETURN 0; END IF;
  RETURN a * b;
END
$$;
--> statement-breakpoint
-- fdlibm's sin and cos (s_sin.c, s_cos.c) in one: the argument reduction __ieee754_rem_pio2
-- (e_rem_pio2.c: x = n·pi/2 + (y0 + y1)) and the kernels __kernel_sin and __kernel_cos (k_sin.c,
-- k_cos.c), inline, as function calls cost more than the arithmetic. sin(x) is kernel number
-- n mod 4 of (sin, cos, -sin, -cos) on y0 + y1, cos(x) number n + 1. Beyond 2^19·pi/2, where
-- fdlibm reduces with __kernel_rem_pio2 (not ported; no coordinate gets there: it takes 47
-- million degrees), PostgreSQL's own sin and cos are used.
CREATE OR REPLACE FUNCTION idp_trig(x float8, cosine boolean) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  ax float8 := abs(x); n integer; y0 float8; y1 float8; reduced boolean := true;
  z float8; t float8; r float8; w float8; v float8; fn float8; j integer; i integer; kernel integer;
  result float8; qx float8; unit float8;
BEGIN
  IF ax < 0.7853984832763672::float8 THEN
    n := 0; y0 := x; y1 := 0; reduced := false;
  ELSIF NOT ax < 1647100.0::float8 THEN
    IF cosine THEN RETURN cos(x); END IF;
    RETURN sin(x);
  ELSIF ax < 2.3561935424804688::float8 THEN
    -- |x| < 3pi/4: n = ±1; near pi/2 (high word 0x3FF921FB) with 33+33+53 bits of pi.
    IF x > 0 THEN
      z := x - 1.5707963267341256::float8;
      IF NOT (ax >= 1.570796012878418::float8 AND ax < 1.5707969665527344::float8) THEN
        y0 := z - 6.077100506506192e-11::float8; y1 := (z - y0) - 6.077100506506192e-11::float8;
      ELSE
        z := z - 6.077100506303966e-11::float8; y0 := z - 2.0222662487959506e-21::float8; y1 := (z - y0) - 2.0222662487959506e-21::float8;
      END IF;
      n := 1;
    ELSE
      z := x + 1.5707963267341256::float8;
      IF NOT (ax >= 1.570796012878418::float8 AND ax < 1.5707969665527344::float8) THEN
        y0 := z + 6.077100506506192e-11::float8; y1 := (z - y0) + 6.077100506506192e-11::float8;
      ELSE
        z := z + 6.077100506303966e-11::float8; y0 := z + 2.0222662487959506e-21::float8; y1 := (z - y0) + 2.0222662487959506e-21::float8;
      END IF;
      n := -1;
    END IF;
  ELSE
    -- Medium size.
    t := ax;
    n := trunc(t * 0.6366197723675814::float8 + 0.5::float8)::integer;
    fn := n;
    r := t - fn * 1.5707963267341256::float8;
    w := fn * 6.077100506506192e-11::float8;
    IF n < 32 AND NOT (ax >= (ARRAY[1.570796012878418, 3.141592025756836, 4.7123870849609375, 6.283184051513672, 7.853981018066406, 9.424774169921875, 10.995567321777344, 12.566368103027344, 14.137161254882812, 15.707962036132812, 17.27874755859375, 18.84954833984375, 20.42034912109375, 21.991134643554688, 23.561935424804688, 25.132736206054688, 26.703536987304688, 28.274322509765625, 29.845123291015625, 31.415924072265625, 32.9866943359375, 34.5574951171875, 36.1282958984375, 37.6990966796875, 39.2698974609375, 40.8406982421875, 42.4114990234375, 43.982269287109375, 45.553070068359375, 47.123870849609375, 48.694671630859375, 50.265472412109375]::float8[])[n] AND ax < (ARRAY[1.5707969665527344, 3.1415939331054688, 4.712390899658203, 6.2831878662109375, 7.853984832763672, 9.424781799316406, 10.995574951171875, 12.566375732421875, 14.137168884277344, 15.707969665527344, 17.278762817382812, 18.849563598632812, 20.420364379882812, 21.99114990234375, 23.56195068359375, 25.13275146484375, 26.70355224609375, 28.274337768554688, 29.845138549804688, 31.415939331054688, 32.986724853515625, 34.557525634765625, 36.128326416015625, 37.699127197265625, 39.269927978515625, 40.840728759765625, 42.411529541015625, 43.9822998046875, 45.5531005859375, 47.1239013671875, 48.6947021484375, 50.2655029296875]::float8[])[n]) THEN
      y0 := r - w;
    ELSE
      -- j and i compare biased exponents (0 for zero and subnormals), as the high words do.
      j := idp_exponent(ax) + 1023;
      y0 := r - w;
      i := j - CASE WHEN y0 = 0 THEN 0 ELSE greatest(idp_exponent(y0) + 1023, 0) END;
      IF i > 16 THEN
        t := r; w := fn * 6.077100506303966e-11::float8; r := t - w; w := fn * 2.0222662487959506e-21::float8 - ((t - r) - w); y0 := r - w;
        i := j - CASE WHEN y0 = 0 THEN 0 ELSE greatest(idp_exponent(y0) + 1023, 0) END;
        IF i > 49 THEN
          t := r; w := fn * 2.0222662487111665e-21::float8; r := t - w; w := fn * 8.4784276603689e-32::float8 - ((t - r) - w); y0 := r - w;
        END IF;
      END IF;
    END IF;
    y1 := (r - y0) - w;
    IF x < 0 THEN
      n := -n; y0 := -y0; y1 := -y1;
    END IF;
  END IF;
  kernel := (n + CASE WHEN cosine THEN 1 ELSE 0 END) & 3;
  IF kernel % 2 = 0 THEN
    -- __kernel_sin(y0, y1, reduced ? 1 : 0)
    IF abs(y0) < 7.450580596923828e-9::float8 THEN
      result := y0;
    ELSE
      z := y0 * y0;
      v := z * y0;
      r := 0.00833333333332249::float8 + z * (-0.0001984126982985795::float8 + z * (0.0000027557313707070068::float8 + z * (-2.5050760253406863e-8::float8 + z * 1.58969099521155e-10::float8)));
      IF NOT reduced THEN
        result := y0 + v * (-0.16666666666666632::float8 + z * r);
      ELSE
        result := y0 - ((z * (0.5::float8 * y1 - v * r) - y1) - v * -0.16666666666666632::float8);
      END IF;
    END IF;
  ELSE
    -- __kernel_cos(y0, y1); INSERT_WORDS(qx, ix - 0x00200000, 0) is |y0| with its low word
    -- cleared, divided by 4.
    t := abs(y0);
    IF t < 7.450580596923828e-9::float8 THEN
      result := 1;
    ELSE
      z := y0 * y0;
      r := z * (0.0416666666666666::float8 + z * (-0.001388888888887411::float8 + z * (0.00002480158728947673::float8 + z * (-2.7557314351390663e-7::float8 + z * (2.087572321298175e-9::float8 + z * -1.1359647557788195e-11::float8)))));
      IF t < 0.2999999523162842::float8 THEN
        result := 1::float8 - (0.5::float8 * z - (z * r - y0 * y1));
      ELSE
        IF t >= 0.7812504768371582::float8 THEN
          qx := 0.28125::float8;
        ELSE
          unit := power(2::float8, idp_exponent(t) - 20);
          qx := trunc(t / unit) * unit / 4;
        END IF;
        result := (1::float8 - qx) - ((0.5::float8 * z - qx) - (z * r - y0 * y1));
      END IF;
    END IF;
  END IF;
  IF kernel >= 2 THEN RETURN -result; END IF;
  RETURN result;
END
$$;
--> statement-breakpoint
-- fdlibm's asin (e_asin.c); SET_LOW_WORD(w, 0) clears the low 32 bits: w = s truncated to the
-- 21 leading bits of its significand.
CREATE OR REPLACE FUNCTION idp_asin(x float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  ax float8 := abs(x); t float8; w float8; p float8; q float8; c float8; r float8; s float8; unit float8;
BEGIN
  IF ax >= 1 THEN
    IF ax = 1 THEN RETURN x * 1.5707963267948966::float8 + x * 6.123233995736766e-17::float8; END IF;
    RETURN 'NaN'::float8;
  END IF;
  IF ax < 0.5::float8 THEN
    IF ax < 7.450580596923828e-9::float8 THEN RETURN x; END IF;
    t := x * x;
    p := t * (0.16666666666666666::float8 + t * (-0.3255658186224009::float8 + t * (0.20121253213486293::float8 + t * (-0.04005553450067941::float8 + t * (0.0007915349942898145::float8 + t * 0.00003479331075960212::float8)))));
    q := 1::float8 + t * (-2.403394911734414::float8 + t * (2.0209457602335057::float8 + t * (-0.6882839716054533::float8 + t * 0.07703815055590194::float8)));
    w := p / q;
    RETURN x + x * w;
  END IF;
  w := 1::float8 - ax;
  t := w * 0.5::float8;
  p := t * (0.16666666666666666::float8 + t * (-0.3255658186224009::float8 + t * (0.20121253213486293::float8 + t * (-0.04005553450067941::float8 + t * (0.0007915349942898145::float8 + t * 0.00003479331075960212::float8)))));
  q := 1::float8 + t * (-2.403394911734414::float8 + t * (2.0209457602335057::float8 + t * (-0.6882839716054533::float8 + t * 0.07703815055590194::float8)));
  s := sqrt(t);
  IF ax >= 0.9749999046325684::float8 THEN
    w := p / q;
    t := 1.5707963267948966::float8 - (2::float8 * (s + s * w) - 6.123233995736766e-17::float8);
  ELSE
    unit := power(2::float8, idp_exponent(s) - 20);
    w := trunc(s / unit) * unit;
    c := (t - w * w) / (s + w);
    r := p / q;
    p := 2::float8 * s * r - (6.123233995736766e-17::float8 - 2::float8 * c);
    q := 0.7853981633974483::float8 - 2::float8 * w;
    t := 0.7853981633974483::float8 - (p - q);
  END IF;
  IF x > 0 THEN RETURN t; END IF;
  RETURN -t;
END
$$;
--> statement-breakpoint
-- distanceMeters(lat1, lon1, lat2, lon2), operation for operation:
--   2 * R * asin(sqrt(min(1, sin(dlat/2)^2 + cos(lat1) cos(lat2) sin(dlon/2)^2)))
-- x ** 2 is x * x in V8 (fdlibm's pow returns x*x for y = 2). The products that can round to
-- zero go through idp_mul; the others cannot (see each kernel's argument bounds). NULL unless all
-- four are given (SQLite's gives NULL unless all four are numbers).
CREATE OR REPLACE FUNCTION idp_distance(lat1 float8, lon1 float8, lat2 float8, lon2 float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  radians float8 := pi() / 180::float8;
  -- Products of two numbers at least this large are normal: no underflow, no call to idp_mul.
  normal float8 := 1.4916681462400413e-154::float8;
  d float8; half_lat float8; half_lon float8; sin_lat float8; sin_lon float8; lat1_r float8; lat2_r float8;
  sin_lat2 float8; sin_lon2 float8; cosines float8; h float8;
BEGIN
  -- (x * y) is written CASE WHEN abs(x) >= normal AND abs(y) >= normal THEN x * y ELSE idp_mul(x, y) END
  -- (radians, 0.5 and a product of cosines, at least 1e-38, are always >= normal).
  d := lat2 - lat1;
  d := CASE WHEN abs(d) >= normal THEN d * radians ELSE idp_mul(d, radians) END;
  half_lat := CASE WHEN abs(d) >= normal THEN d * 0.5::float8 ELSE idp_mul(d, 0.5::float8) END;
  d := lon2 - lon1;
  d := CASE WHEN abs(d) >= normal THEN d * radians ELSE idp_mul(d, radians) END;
  half_lon := CASE WHEN abs(d) >= normal THEN d * 0.5::float8 ELSE idp_mul(d, 0.5::float8) END;
  lat1_r := CASE WHEN abs(lat1) >= normal THEN lat1 * radians ELSE idp_mul(lat1, radians) END;
  lat2_r := CASE WHEN abs(lat2) >= normal THEN lat2 * radians ELSE idp_mul(lat2, radians) END;
  sin_lat := idp_trig(half_lat, false);
  sin_lon := idp_trig(half_lon, false);
  sin_lat2 := CASE WHEN abs(sin_lat) >= normal THEN sin_lat * sin_lat ELSE idp_mul(sin_lat, sin_lat) END;
  sin_lon2 := CASE WHEN abs(sin_lon) >= normal THEN sin_lon * sin_lon ELSE idp_mul(sin_lon, sin_lon) END;
  cosines := idp_trig(lat1_r, true) * idp_trig(lat2_r, true);
  h := sin_lat2 + CASE WHEN abs(sin_lon2) >= normal AND abs(cosines) >= normal THEN cosines * sin_lon2 ELSE idp_mul(cosines, sin_lon2) END;
  RETURN 2::float8 * 6371008.8::float8 * idp_asin(sqrt(least(1::float8, h)));
END
$$;
--> statement-breakpoint
-- Containment (properties @> '{"a": 1}') is what a query's `=` on a number or boolean adds for
-- this index to serve (see dialect.ts).
CREATE INDEX IF NOT EXISTS "entities_properties" ON "entities" USING gin ("properties" jsonb_path_ops);
