/**
 * The scorers' door: the schema of a scorer, and `scoreOne`, which scores one finished session.
 * Pure but for the judge, handed in by the caller (evals, canary aliases).
 */
export { type Judge, type JudgeUsage, judgePrompt, parseVerdict } from "./judge";
export { isSubset, type ScoreInput, type ScoreResult, scoreOne } from "./score";
export { MAX_SCORERS, type Scorer, scorerKeys, scorerListSchema, scorerSchema, type ScorerType } from "./schema";
