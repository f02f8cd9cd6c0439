-- SCIM lists are paged by records in the order (created_at, id) (ListScimUsers/ListScimGroups
-- with start_index and count): these indexes give a page of a brand's directory, and its count,
-- without reading and sorting the brand's whole directory each time. A directory is at most tens
-- of thousands of rows a brand; built inside the migration's transaction (it blocks writes to the
-- table for the moments it builds); on a very large live table, create them concurrently by hand
-- first under the same names, and this file skips them.
create index if not exists scim_users_brand_order_idx on scim_users (brand_id, created_at, id);
create index if not exists scim_groups_brand_order_idx on scim_groups (brand_id, created_at, id);
