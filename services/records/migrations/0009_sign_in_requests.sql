-- Sign-in links minted off the answer's path (issue 23). A request for a link is stored here,
-- member or not, and answered at once: the answer does the same work for everyone, so its
-- timing cannot tell a member from a stranger. The console then claims the requests
-- (ClaimSignInMails): for a member's address one new link is minted and mailed, for anyone
-- else the requests are dropped. A claim is leased: a console that dies before confirming the
-- mail leaves the requests to be claimed again, so nothing accepted is lost.
--
-- Numbered 0009 because another branch holds 0008; the runner applies every file it has not
-- recorded, in name order, and nothing here depends on 0008.
create table sign_in_requests (
  id text collate "C" primary key,
  email text not null check (email = lower(email)),
  requested_at timestamptz not null default now(),
  -- set while a console sends the mail; a claim after claimed_until replaces both
  claim_id text collate "C",
  claimed_until timestamptz
);
create index sign_in_requests_email_idx on sign_in_requests (email);
create index sign_in_requests_claim_idx on sign_in_requests (claim_id) where claim_id is not null;

-- Mails to one address are spaced by the newest link minted for it, and a new link ends the
-- address's earlier unused ones: both look links up by address.
create index sign_in_links_email_idx on sign_in_links (email, created_at desc);
