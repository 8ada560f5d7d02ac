import { LabelStore } from './label-store.js';
import { TrajectoryStore } from './trajectory-store.js';
import { VerdictStore } from './verdict-store.js';
export class JudgeStore {
    sql;
    trajectories;
    verdicts;
    labels;
    constructor(sql) {
        this.sql = sql;
        this.trajectories = new TrajectoryStore(sql);
        this.verdicts = new VerdictStore(sql);
        this.labels = new LabelStore(sql);
    }
}
//# sourceMappingURL=store.js.map