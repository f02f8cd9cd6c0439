-- A brand's subscription level is its tier: "plan" now means only a campaign plan
-- (services/plans). The check constraint follows the column.
alter table brands rename column plan to tier;
