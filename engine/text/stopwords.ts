/** English stop words plus the filler of bug reports (greetings, report boilerplate). */
export const stopWords = new Set(
  `a about above after again against all also am an and any are aren as at be because been before being below between both but by
  can cannot could couldn did didn do does doesn doing don down during each else etc even ever every few for from further get gets
  getting got had hadn has hasn have haven having he her here hers herself him himself his how however i if in into is isn it its
  itself just let lets like may me might more most much must mustn my myself need needs no nor not now of off on once one only or
  other ought our ours ourselves out over own per please same shall shan she should shouldn since so some still such than that the
  their theirs them themselves then there these they this those though through thus to too under until up upon us use used uses
  using very via was wasn we were weren what when where whether which while who whom whose why will with within without won would
  wouldn yet you your yours yourself yourselves
  hi hello thanks thank regards issue issues problem problems bug bugs seems seem see seen saw found find also currently
  attached attachment following follow steps step expected actual result results reproduce reproduced reproducible occurs occurred
  happen happens happened happening instead able unable try tried trying way case cases time times new old`
    .split(/\s+/)
    .filter(Boolean),
);
