-- GET /api/v1/{resource}/{id} (issue 44) looks a record up by brand and id. campaigns,
-- submissions and links already have unique (brand_id, id) (0002: children reference it);
-- the other three get it here, so every lookup is one probe of a (brand_id, id) index: an id
-- of another brand and an id that exists nowhere both find no entry and never touch the
-- table, the same work in the same time (no existence oracle across brands). Unique because
-- id alone already is (primary key). Built inside the migration's transaction: it blocks
-- writes to each table while it builds (seconds per million rows); on a large live table,
-- create it concurrently by hand first under the same name, and this file skips it.
create unique index if not exists payouts_brand_id_id_key on payouts (brand_id, id);
create unique index if not exists deposits_brand_id_id_key on deposits (brand_id, id);
create unique index if not exists conversions_brand_id_id_key on conversions (brand_id, id);
