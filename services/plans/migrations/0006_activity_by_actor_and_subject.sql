-- The audit log's filters by who acted and by what they acted on (the Activity page, its export,
-- brandctl activity: "what did this person do", "what happened to this key") read the brand's
-- entries in the page's order and kept the matching ones: a rare actor's page stepped through
-- every other entry of the brand (20,000 read for 3 in activity.pageQuery.test.ts, then sorted).
-- Each index leads with the brand and the filtered column in the page's order (activityRepo.ts:
-- lower(actor_email), actor_member_id, subject_id), so such a page reads its own entries and
-- stops after them. Not partial (an operator's entries have no member id): the page's statement
-- names its value as a parameter, which a generic plan cannot prove to be outside a partial
-- index's predicate. Expand only. Built inside the migration's transaction: they hold writes to
-- the log while they build (a few seconds per million entries); on a large log, create them
-- concurrently by hand first under the same names, and this file skips them.
create index if not exists activity_brand_actor_email_idx
  on activity (brand_id, lower(actor_email), created_at desc, id desc);
create index if not exists activity_brand_actor_member_idx
  on activity (brand_id, actor_member_id, created_at desc, id desc);
create index if not exists activity_brand_subject_idx
  on activity (brand_id, subject_id, created_at desc, id desc);
