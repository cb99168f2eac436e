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
-- a * b, or 0 where the product is below about 1e-307: PostgreSQL raises "underflow" where IEEE
-- arithmetic rounds a product to zero (and JavaScript would give a subnormal). A term of a
-- distance that small moves it by less than 1e-140 meters. The first test passes every product of
-- two numbers of at least 1e-154, which are normal; the others are tested in order, so ln never
-- sees zero.
CREATE FUNCTION idp_product(a float8, b float8) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE
    WHEN abs(a) >= 1e-154::float8 AND abs(b) >= 1e-154::float8 THEN a * b
    WHEN a = 0 OR b = 0 THEN 0::float8
    WHEN ln(abs(a)) + ln(abs(b)) < -707 THEN 0::float8
    ELSE a * b
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
