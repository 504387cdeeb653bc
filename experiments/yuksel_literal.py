#!/usr/bin/env python3
"""An independent, literal transcription of Yuksel 2024's Algorithms 1-2 (incremental and
zero-sum updates, with UpdateStats) and its section 4 matchmaking, for the population
experiment of section 5.3, to cross-check `rate-batch-lab simulate yuksel-population`
and `rate-batch-lab experiment` (it shares no code with them; Python standard library only).

    python3 experiments/yuksel_literal.py PLAYERS ROUNDS ZERO_SUM(0|1) [SEED [S [random]]]

prints, after rounds 1, 10, 100, 300, 1000, 2000, 5000 and 10000 (those reached), the RMSE
(mean offset removed), the scale (least-squares slope of the ratings on the true ones) and the
RMSE left once the scale is removed too. Environment knobs for the unstated details:
ALPHA (2), W0 (the "small value" W starts at, 1e-9; R starts at 0 as the paper says, so W0
also sets a first-game deviation of about 1500 sqrt(W0)).

Measured (docs/systems.md, "Yuksel 2024 in the simulation lab"): 1000 players, zero-sum, seed
1: 24.8 after 1,000 rounds and 10.3 after 10,000 (scale 1.010); ALPHA=1.5 / 1 / 3 give 64 / 101
/ 2160 at 1,000 rounds; W0=1e-2 gives 213.6 after 10 rounds but 40.5 after 1,000; with `random`
pairing S = 1, 0.95 and 0.9 are unstable (507, 446, 372 after 1,000 rounds) and S = 0.7
converges (57 after 2,000).
"""
import math, os, random, sys
random.seed(int(sys.argv[4]) if len(sys.argv)>4 else 1)
q = math.log(10)/400
def f(ra, rb): return 1/(1+10**((rb-ra)/400))
def g(phi): return 1/math.sqrt(1+3*q*q*phi*phi/math.pi**2)
N=int(sys.argv[1]); ROUNDS=int(sys.argv[2]); zero=sys.argv[3]=='1'; alpha=float(os.environ.get('ALPHA', '2')); DMAX=350; s_step=float(sys.argv[5]) if len(sys.argv)>5 else 1.0
truth=[random.gauss(1500,600) for _ in range(N)]
r=[1500.0]*N; D=[0.0]*N; W=[float(os.environ.get('W0', '1e-9'))]*N; R=[0.0]*N; V=[0.0]*N
recent=[[] for _ in range(N)]; games=[0]*N
def phi(a): return math.sqrt(V[a]/W[a])
def stats(a, dr):
    r[a]+=s_step*dr
    w=g(alpha*phi(a))
    W[a]=w*W[a]+1
    dR=r[a]-R[a]
    R[a]+=dR/W[a]
    V[a]=w*V[a]+dR*(r[a]-R[a])
def desired(a,n=5,lam=0.5):
    m=games[a]; rec=recent[a][-n:]; w=sum(rec)
    p=(lam*(2*n+1)-w)/(n+1) if m>=n else (lam*(n+m+1)-w)/(n+1)
    p=min(max(p,1e-3),1-1e-3)
    return r[a]+400*math.log10((1-p)/p)
for rnd in range(ROUNDS):
    if len(sys.argv)>6 and sys.argv[6]=='random':
        order=list(range(N)); random.shuffle(order)
    else:
        order=sorted(range(N), key=lambda a: desired(a))
        win=max(1,int(0.05*N))
        for i in range(N):
            j=min(i+random.randint(0,win),N-1); order[i],order[j]=order[j],order[i]
    for k in range(0,N-1,2):
        a,b=order[k],order[k+1]
        s=1.0 if random.random()<f(truth[a],truth[b]) else 0.0
        fab=f(r[a],r[b]); pa,pb=phi(a),phi(b)
        Fa=g(pb)*(s-fab); Fb=g(pa)*(fab-s)
        dfa=q*fab*(1-fab)
        Da=g(pb)*dfa+g(alpha*pa)*D[a]; Db=g(pa)*dfa+g(alpha*pb)*D[b]
        if zero:
            dr=(Da*Fa-Db*Fb)/(Da*Da+Db*Db)
            dr=max(-DMAX,min(DMAX,dr))
            if dr!=0: Da=Fa/dr; Db=-Fb/dr
            D[a]=Da; D[b]=Db
            stats(a,dr); stats(b,-dr)
        else:
            dra=max(-DMAX,min(DMAX,Fa/Da)); 
            if abs(dra)==DMAX: Da=Fa/dra
            drb=max(-DMAX,min(DMAX,Fb/Db))
            if abs(drb)==DMAX: Db=Fb/drb
            D[a]=Da; D[b]=Db
            stats(a,dra); stats(b,drb)
        recent[a].append(s); recent[b].append(1-s); games[a]+=1; games[b]+=1
    if rnd+1 in (1,10,100,300,1000,2000,5000,10000):
        d=[r[i]-truth[i] for i in range(N)]; m=sum(d)/N
        mt=sum(truth)/N; mr=sum(r)/N
        slope=sum((r[i]-mr)*(truth[i]-mt) for i in range(N))/sum((t-mt)**2 for t in truth)
        rest=math.sqrt(sum(((r[i]-mr)-slope*(truth[i]-mt))**2 for i in range(N))/N)
        print(rnd+1, 'rmse %.1f scale %.4f without-scale %.1f'%(math.sqrt(sum((x-m)**2 for x in d)/N), slope, rest), flush=True)
