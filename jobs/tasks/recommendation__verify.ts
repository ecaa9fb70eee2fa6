/** Verifies that an implemented fix held (usecases/verifyImplementedFix.ts). */
import { verifyImplementedFix } from '../../usecases/verifyImplementedFix.ts';
import { recommendationVerify } from '../queue/recommendation__verify.ts';
import { defineTask } from '../runtime.ts';

export const recommendationVerifyTask = defineTask({ ...recommendationVerify, run: verifyImplementedFix });
