-- What waits for review (brandctl submission list --status pending): a brand's pending
-- submissions, newest first, read without walking the approved and rejected ones.
create index submissions_pending on submissions (brand_id, created_at desc, id desc)
  where status = 'pending';
