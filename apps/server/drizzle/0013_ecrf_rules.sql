-- reserved migration slot; replace this statement with the real ones
SELECT 1;
