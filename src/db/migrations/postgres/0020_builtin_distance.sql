-- distanceMeters (src/data/query/functions.ts) in PostgreSQL's own arithmetic: the same haversine,
-- operation for operation, with its built-in sin, cos, asin and sqrt. These may differ from
-- JavaScript's (V8's fdlibm) in the last bit, so a distance here agrees with SQLite's and the
-- reference's to about 1e-15 of itself — further apart only within meters of the antipode, where
-- asin is steep: centimeters there (docs/api.md#distances says what that means at a query's edge).
-- It replaces the bit-exact port of fdlibm that 0001_query_functions.sql once held.
DROP FUNCTION IF EXISTS idp_distance(float8, float8, float8, float8);
--> statement-breakpoint
DROP FUNCTION IF EXISTS idp_asin(float8);
--> statement-breakpoint
DROP FUNCTION IF EXISTS idp_trig(float8, boolean);
--> statement-breakpoint
DROP FUNCTION IF EXISTS idp_mul(float8, float8);
--> statement-breakpoint
DROP FUNCTION IF EXISTS idp_exponent(float8);
--> statement-breakpoint
-- a * b, as IEEE arithmetic (and JavaScript) gives it: PostgreSQL computes the same product but
-- raises "underflow" where it rounds to zero, which is where the exact product is at most 2^-1075
-- (half the least subnormal; the tie rounds to even, zero). A product of two numbers of at least
-- 2^-511, or with one of at least 1, is never that small. Otherwise both are below 1 and one below
-- 2^-511: scaled by 2^600 each, their product lies between 2^-948 and 2^689, so it is computed
-- without underflow or overflow, and it exceeds 2^125 exactly when the product exceeds 2^-1075
-- (rounding is monotone and 2^125 is a double).
CREATE FUNCTION idp_product(a float8, b float8) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE
    WHEN abs(a) >= 1 OR abs(b) >= 1 OR (abs(a) >= power(2::float8, -511) AND abs(b) >= power(2::float8, -511)) THEN a * b
    WHEN abs((a * power(2::float8, 600)) * (b * power(2::float8, 600))) > power(2::float8, 125) THEN a * b
    ELSE 0::float8
  END
$$;
--> statement-breakpoint
-- distanceMeters(lat1, lon1, lat2, lon2) = 2 R asin(sqrt(min(1, h))), with
--   h = sin²(Δlat/2) + cos(lat1) cos(lat2) sin²(Δlon/2)
-- in radians (pi() / 180 is JavaScript's Math.PI / 180). Each step is computed once, into a
-- variable: a SQL function would repeat the arguments' jsonb reads at every use. The product of
-- two cosines is never below 1e-38 (no double is nearer an odd multiple of pi/2 than 1e-19), so it
-- needs no guard. NULL unless all four are given, as SQLite's gives NULL unless all four are
-- numbers.
CREATE FUNCTION idp_distance(lat1 float8, lon1 float8, lat2 float8, lon2 float8) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
  sin_lat float8 := sin(idp_product(lat2 - lat1, pi() / 360));
  sin_lon float8 := sin(idp_product(lon2 - lon1, pi() / 360));
  cosines float8 := cos(idp_product(lat1, pi() / 180)) * cos(idp_product(lat2, pi() / 180));
BEGIN
  RETURN 2 * 6371008.8::float8 * asin(sqrt(least(1::float8, idp_product(sin_lat, sin_lat) + idp_product(cosines, idp_product(sin_lon, sin_lon)))));
END
$$;
