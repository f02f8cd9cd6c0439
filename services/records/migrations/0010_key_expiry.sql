-- Key expiry and rolls (issue 26). A key may carry an expiry; from that instant it is refused
-- exactly like a revoked key (invalid_key), by the records service and by every gateway on
-- each request. Rolling a key creates its replacement (same name, environment, permissions)
-- and gives the old key an expiry; replaced_by names the replacement, so the owner's view
-- (and the request log's 401 reasons) can say "expired by a roll".
--
-- Numbered 0010 because another branch holds 0011; nothing here depends on it.
alter table api_keys add column expires_at timestamptz;
alter table api_keys add column replaced_by text collate "C" references api_keys (id);

-- An expiry only ever moves earlier: once set it can be brought forward (ending an overlap
-- early) but never cleared or pushed later, so an expired key can never be used again. The
-- services keep to this; the trigger makes it hold for any writer. replaced_by is set once.
create function api_keys_expiry_only_earlier() returns trigger language plpgsql as $$
begin
  if old.expires_at is not null
     and (new.expires_at is null or new.expires_at > old.expires_at) then
    raise exception 'api key % expiry can only move earlier', old.id
      using errcode = 'check_violation';
  end if;
  if old.replaced_by is not null and new.replaced_by is distinct from old.replaced_by then
    raise exception 'api key % was already replaced', old.id using errcode = 'check_violation';
  end if;
  return new;
end;
$$;

create trigger api_keys_expiry_only_earlier
  before update of expires_at, replaced_by on api_keys
  for each row execute function api_keys_expiry_only_earlier();
